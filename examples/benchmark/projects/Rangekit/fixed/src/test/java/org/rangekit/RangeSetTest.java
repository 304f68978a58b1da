package org.rangekit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.Arrays;

import org.junit.Test;

/**
 * Tests for {@link RangeSet}.
 */
public class RangeSetTest {

    @Test
    public void testAddDisjoint() {
        final RangeSet set = new RangeSet().add(10, 12).add(1, 3);
        assertEquals(Arrays.asList(new IntRange(1, 3), new IntRange(10, 12)), set.ranges());
    }

    @Test
    public void testAddOverlapping() {
        final RangeSet set = new RangeSet().add(1, 5).add(4, 8).add(20, 30).add(7, 21);
        assertEquals(Arrays.asList(new IntRange(1, 30)), set.ranges());
    }

    @Test
    public void testAddAdjacentMerges() {
        assertEquals(Arrays.asList(new IntRange(1, 6)), new RangeSet().add(1, 3).add(4, 6).ranges());
        assertEquals(Arrays.asList(new IntRange(1, 6)), new RangeSet().add(4, 6).add(1, 3).ranges());
        assertEquals(new RangeSet().add(1, 6), new RangeSet().add(1, 3).add(4, 6));
    }

    @Test
    public void testAddAtIntegerLimits() {
        final RangeSet set = new RangeSet().add(Integer.MAX_VALUE - 1, Integer.MAX_VALUE).add(Integer.MIN_VALUE, 0);
        assertEquals(2, set.ranges().size());
    }

    @Test
    public void testContains() {
        final RangeSet set = new RangeSet().add(1, 3).add(10, 12);
        assertTrue(set.contains(2));
        assertFalse(set.contains(5));
        assertFalse(set.contains(0));
        assertFalse(set.contains(13));
    }

    @Test
    public void testContainsUpperBound() {
        final RangeSet set = new RangeSet().add(1, 3).add(10, 12);
        assertTrue(set.contains(3));
        assertTrue(set.contains(12));
        assertTrue(new RangeSet().add(IntRange.of(7)).contains(7));
    }

    @Test
    public void testCardinality() {
        assertEquals(0, new RangeSet().cardinality());
        assertEquals(6, new RangeSet().add(1, 3).add(10, 12).cardinality());
        assertEquals(1L << 32, new RangeSet().add(Integer.MIN_VALUE, Integer.MAX_VALUE).cardinality());
    }
}
