package org.textkit;

import java.util.Arrays;
import java.util.Collections;

import junit.framework.TestCase;

/**
 * Tests for {@link Words}.
 */
public class WordsTest extends TestCase {

    public WordsTest(final String name) {
        super(name);
    }

    public void testCapitalize() {
        assertEquals("", Words.capitalize(""));
        assertEquals("Cat", Words.capitalize("cat"));
        assertEquals("CAt", Words.capitalize("cAt"));
        final String already = "Dog";
        assertSame(already, Words.capitalize(already));
    }

    public void testCapitalizeNull() {
        assertNull(Words.capitalize(null));
    }

    public void testUncapitalize() {
        assertNull(Words.uncapitalize(null));
        assertEquals("cAT", Words.uncapitalize("CAT"));
    }

    public void testCapitalizeFully() {
        assertEquals("Hello World", Words.capitalizeFully("hELLO wORLD"));
        assertEquals("  A  B", Words.capitalizeFully("  a  b"));
    }

    public void testSplitAndCount() {
        assertEquals(Collections.emptyList(), Words.split("   "));
        assertEquals(Arrays.asList("one", "two", "three"), Words.split(" one two\tthree "));
        assertEquals(3, Words.count("one two three"));
        assertEquals(0, Words.count(null));
    }

    public void testInitials() {
        assertEquals("JRRT", Words.initials("john ronald reuel tolkien"));
        assertEquals("", Words.initials(""));
    }

    public void testWrap() {
        assertEquals("The quick\nbrown fox\njumps", Words.wrap("The quick brown fox jumps", 10));
        assertEquals("a\nverylongword\nb", Words.wrap("a verylongword b", 5));
        assertNull(Words.wrap(null, 5));
        try {
            Words.wrap("x", 0);
            fail("width 0 accepted");
        } catch (final IllegalArgumentException expected) {
            // expected
        }
    }

    public void testAbbreviate() {
        assertEquals("abc...", Words.abbreviate("abcdefg", 6));
        assertEquals("abcdefg", Words.abbreviate("abcdefg", 7));
        assertNull(Words.abbreviate(null, 4));
    }

    public void testSlugify() {
        assertEquals("hello-world", Words.slugify(" Hello, World! "));
        assertEquals("creme-brulee-recipe", Words.slugify("Cr\u00e8me Br\u00fbl\u00e9e: recipe"));
        assertEquals("", Words.slugify("!!!"));
    }
}
