package org.rangekit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

/**
 * The examples shown in the project's README, kept compiling and passing.
 */
public class ReadmeExamplesTest {

    @Test
    public void testRangeExamples() {
        final IntRange workHours = new IntRange(9, 17);
        assertTrue(workHours.contains(12));
        assertEquals(new IntRange(12, 17), workHours.intersection(new IntRange(12, 20)));
    }

    @Test
    public void testRangeSetExamples() {
        final RangeSet ports = new RangeSet().add(8000, 8010).add(8005, 8020).add(9000, 9000);
        assertEquals(2, ports.ranges().size());
        assertTrue(ports.contains(8015));
        assertFalse(ports.contains(8500));
        assertEquals(22, ports.cardinality());
    }

    @Test
    public void testStatsExamples() {
        final double[] latencies = {12, 15, 11, 30, 14};
        assertEquals(14.0, Stats.median(latencies), 1e-12);
        assertEquals(30.0, Stats.max(latencies), 1e-12);
        assertEquals(30.0, Stats.percentile(latencies, 1.0), 1e-12);
        assertEquals(3, Histogram.of(latencies, 2).count(0) - 1);
    }
}
