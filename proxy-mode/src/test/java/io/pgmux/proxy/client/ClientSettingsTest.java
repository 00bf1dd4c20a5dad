package io.pgmux.proxy.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.pgmux.proxy.config.PinSessionState;
import io.pgmux.proxy.config.ProxySettings;
import io.pgmux.proxy.protocol.FrontendMessageDecoder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The settings clients read, made once from the settings in effect. */
class ClientSettingsTest {

    private static ClientSettings of(String name, String value) {
        return ClientSettings.of(ProxySettings.builder().set(name, value, Path.of("")).build(), Map.of(), Map.of());
    }

    @Test
    void ignoredStartupParametersAreMatchedInLowerCase() {
        assertEquals(Set.of("extra_float_digits", "search_path"),
                of("ignore_startup_parameters", "Extra_Float_Digits,SEARCH_PATH").ignoredStartupParameters());
    }

    @Test
    void maxPacketSizeAbovePostgresqlsLimitIsHeldToIt() {
        assertEquals(FrontendMessageDecoder.DEFAULT_MAX_MESSAGE_LENGTH,
                of("max_packet_size", "2147483647").maxMessageLength());
    }

    @Test
    void anEmptyLoginNotifyMessageSendsNoNotice() {
        assertNull(of("login_notify_message", "").loginNotice());
    }

    @Test
    void aDatabasesOwnPinSessionStateIsKeptBesideTheGlobalOne() {
        ClientSettings settings = ClientSettings.of(ProxySettings.builder().set("pin_session_state", "error",
                Path.of("")).build(), Map.of("app", PinSessionState.OFF), Map.of());
        assertEquals(PinSessionState.ERROR, settings.pinSessionState());
        assertEquals(Map.of("app", PinSessionState.OFF), settings.pinSessionStateByDatabase());
    }

    @Test
    void theClientTimeoutsComeFromTheirSettings() {
        ClientTimeouts.Limits limits = of("query_timeout", "3").limits();
        assertEquals(Duration.ofSeconds(3).toNanos(), limits.queryNanos());
    }
}
