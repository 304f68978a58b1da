package org.rangekit;

import junit.framework.TestCase;

/**
 * Tests for {@link Stats}.
 */
public class StatsTest extends TestCase {

    private static final double EPS = 1e-12;

    public void testMeanAndVariance() {
        assertEquals(2.5, Stats.mean(new double[] {1, 2, 3, 4}), EPS);
        assertEquals(5.0 / 3.0, Stats.variance(new double[] {1, 2, 3, 4}), EPS);
        assertEquals(0.0, Stats.variance(new double[] {7}), EPS);
    }

    public void testEmptyInputIsRejected() {
        try {
            Stats.mean(new double[0]);
            fail("empty array accepted");
        } catch (final IllegalArgumentException expected) {
            // expected
        }
    }

    public void testMinMax() {
        assertEquals(1.0, Stats.min(new double[] {3, 1, 2}), EPS);
        assertEquals(3.0, Stats.max(new double[] {3, 1, 2}), EPS);
        assertTrue(Double.isNaN(Stats.max(new double[] {1, Double.NaN})));
    }

    public void testMaxOfNegativeValues() {
        assertEquals(-1.5, Stats.max(new double[] {-3, -1.5, -2}), EPS);
        assertEquals(-7.0, Stats.max(new double[] {-7}), EPS);
    }

    public void testMedian() {
        assertEquals(2.0, Stats.median(new double[] {3, 1, 2}), EPS);
        assertEquals(2.5, Stats.median(new double[] {4, 1, 3, 2}), EPS);
    }

    public void testPercentile() {
        final double[] values = {1, 2, 3, 4, 5};
        assertEquals(1.0, Stats.percentile(values, 0.0), EPS);
        assertEquals(5.0, Stats.percentile(values, 1.0), EPS);
        assertEquals(2.0, Stats.percentile(values, 0.25), EPS);
    }

    public void testPercentileInterpolates() {
        assertEquals(1.75, Stats.percentile(new double[] {4, 3, 2, 1}, 0.25), EPS);
        assertEquals(19.0, Stats.percentile(new double[] {10, 20}, 0.9), EPS);
    }

    public void testPercentileOutOfRange() {
        try {
            Stats.percentile(new double[] {1}, 1.5);
            fail("p = 1.5 accepted");
        } catch (final IllegalArgumentException expected) {
            // expected
        }
    }
}
