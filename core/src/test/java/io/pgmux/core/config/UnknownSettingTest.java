package io.pgmux.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

class UnknownSettingTest {

    @Test
    void messageNamesTheNearestKnownName() {
        assertEquals("unknown setting 'listen_prot'; did you mean 'listen_port'?", UnknownSetting.message("setting",
                "listen_prot", UnknownSetting.nearest("listen_prot", List.of("listen_addr", "listen_port"))));
    }

    @Test
    void aNameFarFromEveryCandidateGetsNoSuggestion() {
        assertNull(UnknownSetting.nearest("frobnicate", List.of("listen_addr", "listen_port")));
        assertEquals("unknown property 'frobnicate'", UnknownSetting.message("property", "frobnicate", null));
    }

    @Test
    void caseDoesNotCountAsADifference() {
        assertEquals("maximumPoolSize", UnknownSetting.nearest("MAXIMUMPOOLSIZE", List.of("maximumPoolSize")));
    }
}
