package org.rangekit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

/**
 * Tests for {@link IntRange}.
 */
public class IntRangeTest {

    @Test
    public void testBoundsInEitherOrder() {
        assertEquals(new IntRange(1, 5), new IntRange(5, 1));
        assertEquals(3, IntRange.of(3).getMinimum());
        assertEquals(3, IntRange.of(3).getMaximum());
    }

    @Test
    public void testContains() {
        final IntRange r = new IntRange(2, 4);
        assertTrue(r.contains(2));
        assertTrue(r.contains(4));
        assertFalse(r.contains(5));
    }

    @Test
    public void testOverlapsAndIntersection() {
        assertTrue(new IntRange(1, 3).overlaps(new IntRange(3, 6)));
        assertFalse(new IntRange(1, 3).overlaps(new IntRange(4, 6)));
        assertFalse(new IntRange(1, 3).overlaps(null));
        assertEquals(new IntRange(3, 4), new IntRange(1, 4).intersection(new IntRange(3, 9)));
    }

    @Test(expected = IllegalArgumentException.class)
    public void testIntersectionOfDisjointRanges() {
        new IntRange(1, 2).intersection(new IntRange(5, 6));
    }

    @Test
    public void testSpanAndClamp() {
        assertEquals(new IntRange(1, 9), new IntRange(1, 2).span(new IntRange(8, 9)));
        assertEquals(2, new IntRange(2, 4).clamp(-7));
        assertEquals(4, new IntRange(2, 4).clamp(70));
        assertEquals(3, new IntRange(2, 4).clamp(3));
    }

    @Test
    public void testOrderingAndToString() {
        assertTrue(new IntRange(1, 2).compareTo(new IntRange(1, 3)) < 0);
        assertTrue(new IntRange(2, 2).compareTo(new IntRange(1, 3)) > 0);
        assertEquals("[1..2]", new IntRange(2, 1).toString());
    }
}
