package org.textkit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

/**
 * Tests for {@link Accents}. Non-ASCII letters are written as unicode escapes.
 */
public class AccentsTest {

    @Test
    public void testStrip() {
        assertNull(Accents.strip(null));
        assertEquals("Creme brulee", Accents.strip("Cr\u00e8me br\u00fbl\u00e9e"));
        assertEquals("Ake Orn", Accents.strip("\u00c5ke \u00d6rn"));
        assertEquals("plain", Accents.strip("plain"));
    }

    @Test
    public void testStripLigatures() {
        assertEquals("Strasse", Accents.strip("Stra\u00dfe"));
        assertEquals("AEsir aether", Accents.strip("\u00c6sir \u00e6ther"));
    }

    @Test
    public void testHasAccents() {
        assertFalse(Accents.hasAccents(null));
        assertFalse(Accents.hasAccents("plain"));
        assertTrue(Accents.hasAccents("\u00e9t\u00e9"));
        assertFalse(Accents.hasAccents("\u00d7\u00f7"));
    }

    @Test
    public void testHasAccentsAfterAscii() {
        assertTrue(Accents.hasAccents("Caf\u00e9"));
        assertTrue(Accents.hasAccents("na\u00efve"));
    }

    @Test
    public void testEqualsIgnoreAccents() {
        assertTrue(Accents.equalsIgnoreAccents("Caf\u00e9", "CAFE"));
        assertTrue(Accents.equalsIgnoreAccents(null, null));
        assertFalse(Accents.equalsIgnoreAccents("cafe", null));
        assertFalse(Accents.equalsIgnoreAccents("cafe", "cafes"));
    }
}
