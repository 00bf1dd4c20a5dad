package io.pgmux.jmh.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

class LoadOptionsTest {
    private static final Set<String> KNOWN = Set.of("url", "user", "password", "seconds");

    @Test
    void readsNamedValuesAndFallsBackToDefaults() {
        LoadOptions o = LoadOptions.parse(new String[] {"--seconds", "7"}, KNOWN);
        assertEquals(7, o.integer("seconds", 30));
        assertEquals("x", o.string("user", "x"));
    }

    @Test
    void refusesAnUnknownOptionRatherThanIgnoringIt() {
        assertThrows(IllegalArgumentException.class, () -> LoadOptions.parse(new String[] {"--secs", "7"}, KNOWN));
    }

    @Test
    void refusesAnOptionWithoutItsValue() {
        assertThrows(IllegalArgumentException.class, () -> LoadOptions.parse(new String[] {"--seconds"}, KNOWN));
    }

    @Test
    void aFlagTakesNoValue() {
        LoadOptions o = LoadOptions.parse(new String[] {"--virtual", "--seconds", "7"}, KNOWN, Set.of("virtual"));
        assertTrue(o.has("virtual"));
        assertEquals(7, o.integer("seconds", 30));
        assertFalse(LoadOptions.parse(new String[0], KNOWN, Set.of("virtual")).has("virtual"));
    }

    @Test
    void refusesANumberThatIsNotOne() {
        LoadOptions o = LoadOptions.parse(new String[] {"--seconds", "ten"}, KNOWN);
        assertThrows(IllegalArgumentException.class, () -> o.integer("seconds", 30));
    }

    @Test
    void theTargetMustBeAPgjdbcUrl() {
        assertThrows(IllegalArgumentException.class,
                () -> LoadOptions.parse(new String[] {"--url", "jdbc:pgmux:postgresql://h/db"}, KNOWN).target());
        assertThrows(IllegalArgumentException.class, () -> LoadOptions.parse(new String[0], KNOWN).target());
        assertEquals("jdbc:postgresql://h/db",
                LoadOptions.parse(new String[] {"--url", "jdbc:postgresql://h/db"}, KNOWN).target().url());
    }
}
