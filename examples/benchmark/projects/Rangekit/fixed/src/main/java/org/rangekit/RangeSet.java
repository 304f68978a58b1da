/*
 * Rangekit - ranges and simple statistics.
 * Licensed under the Apache License, Version 2.0.
 */
package org.rangekit;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A set of ints stored as sorted, disjoint, non-adjacent closed ranges.
 * Adding {@code [1..3]} and {@code [4..6]} stores the single range {@code [1..6]}.
 */
public final class RangeSet {

    private final List<IntRange> ranges = new ArrayList<IntRange>();

    /**
     * Adds every value of a range, merging it with the ranges it overlaps or touches.
     *
     * @param range the range to add, not null
     * @return this set
     */
    public RangeSet add(final IntRange range) {
        IntRange merged = range;
        final List<IntRange> kept = new ArrayList<IntRange>();
        for (final IntRange r : ranges) {
            // touching ranges merge too: [1..3] + [4..6] = [1..6]
            final boolean touches = r.getMinimum() <= merged.getMaximum() + 1L
                && merged.getMinimum() <= r.getMaximum() + 1L;
            if (touches) {
                merged = merged.span(r);
            } else {
                kept.add(r);
            }
        }
        kept.add(merged);
        Collections.sort(kept);
        ranges.clear();
        ranges.addAll(kept);
        return this;
    }

    /**
     * Adds the values {@code from..to}, both included.
     *
     * @param from one end
     * @param to the other end
     * @return this set
     */
    public RangeSet add(final int from, final int to) {
        return add(new IntRange(from, to));
    }

    /**
     * Tells whether a value is in the set.
     *
     * @param value the value
     * @return true if some range contains it
     */
    public boolean contains(final int value) {
        for (final IntRange r : ranges) {
            // ranges are sorted: once one starts after the value, none later can hold it
            if (r.getMinimum() > value) {
                break;
            }
            if (value <= r.getMaximum()) {
                return true;
            }
        }
        return false;
    }

    /**
     * The number of ints in the set.
     *
     * @return the count, as a long since it may exceed {@code Integer.MAX_VALUE}
     */
    public long cardinality() {
        long total = 0;
        for (final IntRange r : ranges) {
            total += (long) r.getMaximum() - r.getMinimum() + 1;
        }
        return total;
    }

    /**
     * The stored ranges, sorted.
     *
     * @return an unmodifiable view of the ranges
     */
    public List<IntRange> ranges() {
        return Collections.unmodifiableList(ranges);
    }

    public boolean isEmpty() {
        return ranges.isEmpty();
    }

    @Override
    public boolean equals(final Object obj) {
        return obj instanceof RangeSet && ranges.equals(((RangeSet) obj).ranges);
    }

    @Override
    public int hashCode() {
        return ranges.hashCode();
    }

    @Override
    public String toString() {
        return ranges.toString();
    }
}
