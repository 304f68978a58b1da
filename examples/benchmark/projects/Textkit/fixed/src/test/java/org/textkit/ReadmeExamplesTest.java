package org.textkit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.Arrays;

import org.junit.Test;

/**
 * The examples shown in the project's README, kept compiling and passing.
 */
public class ReadmeExamplesTest {

    @Test
    public void testStringsExamples() {
        assertEquals("00042", Strings.leftPad("42", 5, '0'));
        assertEquals(2, Strings.indexOfDifference("abcde", "abxyz"));
        assertEquals("ab", Strings.commonPrefix("abcd", "abxy"));
    }

    @Test
    public void testWordsExamples() {
        assertEquals("Textkit", Words.capitalize("textkit"));
        assertEquals("Hello World", Words.capitalizeFully("hello world"));
        assertEquals("cafe-au-lait", Words.slugify("Caf\u00e9 au lait"));
    }

    @Test
    public void testCsvExamples() {
        assertEquals(Arrays.asList("name", "Smith, John", "42"), CsvLine.split("name,\"Smith, John\",42"));
        assertEquals("a,\"b,c\"", CsvLine.join(Arrays.asList("a", "b,c"), ','));
    }

    @Test
    public void testAccentsExamples() {
        assertEquals("Creme brulee", Accents.strip("Cr\u00e8me br\u00fbl\u00e9e"));
        assertTrue(Accents.hasAccents("\u00e9clair"));
        assertTrue(Accents.equalsIgnoreAccents("R\u00e9sum\u00e9", "resume"));
    }
}
