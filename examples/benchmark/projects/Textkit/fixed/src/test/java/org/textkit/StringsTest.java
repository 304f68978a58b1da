package org.textkit;

import junit.framework.TestCase;

/**
 * Tests for {@link Strings}.
 */
public class StringsTest extends TestCase {

    public StringsTest(final String name) {
        super(name);
    }

    public void testIsEmpty() {
        assertTrue(Strings.isEmpty(null));
        assertTrue(Strings.isEmpty(""));
        assertFalse(Strings.isEmpty(" "));
    }

    public void testIsBlank() {
        assertTrue(Strings.isBlank(null));
        assertTrue(Strings.isBlank(" \t\n"));
        assertFalse(Strings.isBlank(" x "));
    }

    public void testRepeat() {
        assertNull(Strings.repeat(null, 2));
        assertEquals("", Strings.repeat("ab", 0));
        assertEquals("", Strings.repeat("ab", -1));
        assertEquals("ababab", Strings.repeat("ab", 3));
    }

    public void testLeftPad() {
        assertNull(Strings.leftPad(null, 5, ' '));
        assertEquals("  abc", Strings.leftPad("abc", 5, ' '));
        assertEquals("abc", Strings.leftPad("abc", 2, ' '));
        assertEquals(9000, Strings.leftPad("x", 9000, '0').length());
    }

    public void testRightPad() {
        assertEquals("abc**", Strings.rightPad("abc", 5, '*'));
        assertEquals("abc", Strings.rightPad("abc", -1, '*'));
    }

    public void testCenter() {
        assertEquals(" ab  ", Strings.center("ab", 5, ' '));
        assertEquals("-a-", Strings.center("a", 3, '-'));
        assertEquals("abcd", Strings.center("abcd", 2, ' '));
        assertNull(Strings.center(null, 4, ' '));
    }

    public void testCountMatches() {
        assertEquals(0, Strings.countMatches(null, "a"));
        assertEquals(0, Strings.countMatches("abc", ""));
        assertEquals(2, Strings.countMatches("abcabc", "bc"));
        assertEquals(1, Strings.countMatches("aaa", "aa"));
    }

    public void testIndexOfDifference() {
        assertEquals(-1, Strings.indexOfDifference(null, null));
        assertEquals(0, Strings.indexOfDifference("abc", null));
        assertEquals(-1, Strings.indexOfDifference("abc", "abc"));
        assertEquals(2, Strings.indexOfDifference("ab", "abxyz"));
        assertEquals(2, Strings.indexOfDifference("abcde", "abxyz"));
        assertEquals(0, Strings.indexOfDifference("xyz", "abc"));
    }

    public void testIndexOfDifferenceInLastCharacter() {
        assertEquals(2, Strings.indexOfDifference("abc", "abd"));
        assertEquals(0, Strings.indexOfDifference("a", "b"));
    }

    public void testCommonPrefix() {
        assertEquals("", Strings.commonPrefix(null, "abc"));
        assertEquals("ab", Strings.commonPrefix("abc", "abx"));
        assertEquals("abc", Strings.commonPrefix("abc", "abc"));
        assertEquals("", Strings.commonPrefix("abc", "xyz"));
    }

    public void testReverse() {
        assertNull(Strings.reverse(null));
        assertEquals("cba", Strings.reverse("abc"));
    }
}
