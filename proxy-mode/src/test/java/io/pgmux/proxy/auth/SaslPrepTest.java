package io.pgmux.proxy.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The examples of RFC 4013 §3 plus PostgreSQL's fall-back to the raw password. */
class SaslPrepTest {

    @Test
    void asciiIsUnchangedEvenWithControlCharacters() {
        assertEquals("user", SaslPrep.prepare("user"));
        assertEquals("a\u0007b", SaslPrep.prepare("a\u0007b"));
    }

    @Test
    void softHyphenIsMappedToNothing() {
        assertEquals("IX", SaslPrep.prepare("I\u00ADX"));
    }

    @Test
    void compatibilityCharactersAreNormalized() {
        assertEquals("a", SaslPrep.prepare("\u00AA"));
        assertEquals("IX", SaslPrep.prepare("\u2168"));
    }

    @Test
    void nonAsciiSpaceBecomesSpace() {
        assertEquals("a b", SaslPrep.prepare("a\u00A0b"));
    }

    @Test
    void prohibitedCharacterKeepsThePasswordAsItIs() {
        assertEquals("\u00E9\u0007", SaslPrep.prepare("\u00E9\u0007"));
    }

    @Test
    void bidiViolationKeepsThePasswordAsItIs() {
        assertEquals("\u0627\u0031", SaslPrep.prepare("\u0627\u0031"));
        assertEquals("\u0627\u0031\u0628", SaslPrep.prepare("\u0627\u0031\u0628"));
    }
}
