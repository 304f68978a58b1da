package org.rangekit;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

/**
 * Tests for {@link Histogram}.
 */
public class HistogramTest {

    @Test
    public void testBins() {
        final Histogram h = Histogram.of(new double[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 10}, 5);
        assertEquals(5, h.bins());
        assertEquals(2, h.count(0));
        assertEquals(2, h.count(3));
        assertEquals(2, h.count(4));
        assertEquals(4.0, h.lowerEdge(2), 1e-12);
    }

    @Test
    public void testSingleValue() {
        final Histogram h = Histogram.of(new double[] {3, 3, 3}, 2);
        assertEquals(3, h.count(0));
        assertEquals(0, h.modeBin());
    }

    @Test
    public void testModeBin() {
        assertEquals(1, Histogram.of(new double[] {0, 5, 5, 6, 10}, 3).modeBin());
    }

    @Test(expected = IllegalArgumentException.class)
    public void testNoBins() {
        Histogram.of(new double[] {1}, 0);
    }
}
