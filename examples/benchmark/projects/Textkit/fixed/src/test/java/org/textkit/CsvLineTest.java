package org.textkit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.util.Arrays;

import org.junit.Test;

/**
 * Tests for {@link CsvLine}.
 */
public class CsvLineTest {

    @Test
    public void testSplitPlain() {
        assertEquals(Arrays.asList("a", "b", "c"), CsvLine.split("a,b,c"));
        assertEquals(Arrays.asList("a", "b"), CsvLine.split("a;b", ';'));
        assertTrue(CsvLine.split(null).isEmpty());
    }

    @Test
    public void testSplitQuotedSeparator() {
        assertEquals(Arrays.asList("a", "b,c", "d"), CsvLine.split("a,\"b,c\",d"));
    }

    @Test
    public void testSplitDoubledQuote() {
        assertEquals(Arrays.asList("say \"hi\"", "x"), CsvLine.split("\"say \"\"hi\"\"\",x"));
    }

    @Test
    public void testSplitTrailingEmptyField() {
        assertEquals(Arrays.asList("a", "b", ""), CsvLine.split("a,b,"));
        assertEquals(Arrays.asList(""), CsvLine.split(""));
    }

    @Test
    public void testJoin() {
        assertEquals("a,\"b,c\",\"q\"\"q\"", CsvLine.join(Arrays.asList("a", "b,c", "q\"q"), ','));
        assertEquals("a,", CsvLine.join(Arrays.asList("a", null), ','));
        assertNull(CsvLine.join(null, ','));
    }

    @Test
    public void testRoundTrip() {
        final java.util.List<String> fields = Arrays.asList("x", "", "he said \"no\"", "1,5");
        assertEquals(fields, CsvLine.split(CsvLine.join(fields, ',')));
    }
}
