/*
 * Rangekit - ranges and simple statistics.
 * Licensed under the Apache License, Version 2.0.
 */
package org.rangekit;

import java.util.Arrays;

/**
 * Descriptive statistics over arrays of doubles.
 */
public final class Stats {

    private Stats() {
    }

    private static void checkNotEmpty(final double[] values) {
        if (values == null || values.length == 0) {
            throw new IllegalArgumentException("values must not be null or empty");
        }
    }

    /**
     * The arithmetic mean.
     *
     * @param values the values, not empty
     * @return the mean
     */
    public static double mean(final double[] values) {
        checkNotEmpty(values);
        double sum = 0;
        for (final double v : values) {
            sum += v;
        }
        return sum / values.length;
    }

    /**
     * The sample variance (divides by {@code n - 1}); 0 for a single value.
     *
     * @param values the values, not empty
     * @return the variance
     */
    public static double variance(final double[] values) {
        checkNotEmpty(values);
        if (values.length == 1) {
            return 0.0;
        }
        final double mean = mean(values);
        double squares = 0;
        for (final double v : values) {
            squares += (v - mean) * (v - mean);
        }
        return squares / (values.length - 1);
    }

    /**
     * The smallest value; NaN if any value is NaN.
     *
     * @param values the values, not empty
     * @return the minimum
     */
    public static double min(final double[] values) {
        checkNotEmpty(values);
        double min = Double.POSITIVE_INFINITY;
        for (final double v : values) {
            if (Double.isNaN(v)) {
                return Double.NaN;
            }
            min = Math.min(min, v);
        }
        return min;
    }

    /**
     * The largest value; NaN if any value is NaN.
     *
     * @param values the values, not empty
     * @return the maximum
     */
    public static double max(final double[] values) {
        checkNotEmpty(values);
        // start below every value so that the first element always wins
        double max = Double.NEGATIVE_INFINITY;
        for (final double v : values) {
            if (Double.isNaN(v)) {
                return Double.NaN;
            }
            if (v > max) {
                max = v;
            }
        }
        return max;
    }

    /**
     * Linear interpolation between two values.
     *
     * @param lower the value at fraction 0
     * @param upper the value at fraction 1
     * @param fraction where to interpolate, in {@code [0, 1]}
     * @return {@code lower + (upper - lower) * fraction}
     */
    static double interpolate(final double lower, final double upper, final double fraction) {
        return lower + (upper - lower) * fraction;
    }

    /**
     * The p-th quantile, interpolating linearly between the closest ranks
     * (the R-7 / Excel PERCENTILE.INC definition).
     *
     * @param values the values, not empty; not modified
     * @param p the quantile, in {@code [0, 1]}
     * @return the quantile
     */
    public static double percentile(final double[] values, final double p) {
        checkNotEmpty(values);
        if (p < 0 || p > 1) {
            throw new IllegalArgumentException("p must be in [0, 1]: " + p);
        }
        final double[] sorted = values.clone();
        Arrays.sort(sorted);
        // position of the quantile among the sorted values, 0-based
        final double pos = p * (sorted.length - 1);
        final int lo = (int) Math.floor(pos);
        final int hi = (int) Math.ceil(pos);
        return interpolate(sorted[lo], sorted[hi], pos - lo);
    }

    /**
     * The median, i.e. the 0.5 quantile.
     *
     * @param values the values, not empty
     * @return the median
     */
    public static double median(final double[] values) {
        return percentile(values, 0.5);
    }
}
