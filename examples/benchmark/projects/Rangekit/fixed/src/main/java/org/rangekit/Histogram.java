/*
 * Rangekit - ranges and simple statistics.
 * Licensed under the Apache License, Version 2.0.
 */
package org.rangekit;

/**
 * Counts of values in equal-width bins between the smallest and the largest value.
 */
public final class Histogram {

    private final double low;
    private final double width;
    private final int[] counts;

    private Histogram(final double low, final double width, final int[] counts) {
        this.low = low;
        this.width = width;
        this.counts = counts;
    }

    /**
     * Bins values into {@code bins} equal-width bins spanning their range.
     *
     * @param values the values, not empty, no NaN
     * @param bins the number of bins, at least 1
     * @return the histogram
     */
    public static Histogram of(final double[] values, final int bins) {
        if (bins < 1) {
            throw new IllegalArgumentException("bins must be at least 1: " + bins);
        }
        final double low = Stats.min(values);
        final double high = Stats.max(values);
        final double width = high > low ? (high - low) / bins : 1.0;
        final int[] counts = new int[bins];
        for (final double v : values) {
            // the maximum belongs to the last bin, not to a bin of its own
            final int bin = Math.min(bins - 1, (int) ((v - low) / width));
            counts[bin]++;
        }
        return new Histogram(low, width, counts);
    }

    public int bins() {
        return counts.length;
    }

    public int count(final int bin) {
        return counts[bin];
    }

    /**
     * The lower edge of a bin.
     *
     * @param bin the bin index
     * @return the smallest value that falls in the bin
     */
    public double lowerEdge(final int bin) {
        return low + bin * width;
    }

    /**
     * The index of the fullest bin (the first one on ties).
     *
     * @return the mode bin
     */
    public int modeBin() {
        int best = 0;
        for (int i = 1; i < counts.length; i++) {
            if (counts[i] > counts[best]) {
                best = i;
            }
        }
        return best;
    }
}
