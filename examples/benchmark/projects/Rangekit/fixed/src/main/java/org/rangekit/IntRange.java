/*
 * Rangekit - ranges and simple statistics.
 * Licensed under the Apache License, Version 2.0.
 */
package org.rangekit;

import java.io.Serializable;

/**
 * An immutable closed range of ints, {@code [minimum..maximum]}; both ends are included.
 */
public final class IntRange implements Serializable, Comparable<IntRange> {

    private static final long serialVersionUID = 1L;

    private final int min;
    private final int max;

    /**
     * Creates a range; the bounds may be given in either order.
     *
     * @param a one end of the range
     * @param b the other end of the range
     */
    public IntRange(final int a, final int b) {
        this.min = Math.min(a, b);
        this.max = Math.max(a, b);
    }

    /**
     * Creates a range holding a single value.
     *
     * @param value the only value
     * @return the range {@code [value..value]}
     */
    public static IntRange of(final int value) {
        return new IntRange(value, value);
    }

    public int getMinimum() {
        return min;
    }

    public int getMaximum() {
        return max;
    }

    /**
     * Tells whether a value lies in this range, ends included.
     *
     * @param value the value to test
     * @return true if {@code minimum <= value <= maximum}
     */
    public boolean contains(final int value) {
        return value >= min && value <= max;
    }

    /**
     * Tells whether this range shares at least one value with another.
     *
     * @param other the other range, null gives false
     * @return true if the ranges overlap
     */
    public boolean overlaps(final IntRange other) {
        if (other == null) {
            return false;
        }
        return other.min <= max && min <= other.max;
    }

    /**
     * The values common to this range and another.
     *
     * @param other the other range
     * @return the intersection
     * @throws IllegalArgumentException if the ranges do not overlap
     */
    public IntRange intersection(final IntRange other) {
        if (!overlaps(other)) {
            throw new IllegalArgumentException("Cannot intersect " + this + " with " + other);
        }
        return new IntRange(Math.max(min, other.min), Math.min(max, other.max));
    }

    /**
     * The smallest range that contains this range and another.
     *
     * @param other the other range
     * @return the span of both ranges
     */
    public IntRange span(final IntRange other) {
        return new IntRange(Math.min(min, other.min), Math.max(max, other.max));
    }

    /**
     * Clamps a value into this range.
     *
     * @param value the value
     * @return the closest value inside the range
     */
    public int clamp(final int value) {
        return Math.max(min, Math.min(max, value));
    }

    @Override
    public int compareTo(final IntRange other) {
        if (min != other.min) {
            return min < other.min ? -1 : 1;
        }
        return max == other.max ? 0 : (max < other.max ? -1 : 1);
    }

    @Override
    public boolean equals(final Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof IntRange)) {
            return false;
        }
        final IntRange other = (IntRange) obj;
        return min == other.min && max == other.max;
    }

    @Override
    public int hashCode() {
        return 31 * min + max;
    }

    @Override
    public String toString() {
        return "[" + min + ".." + max + "]";
    }
}
