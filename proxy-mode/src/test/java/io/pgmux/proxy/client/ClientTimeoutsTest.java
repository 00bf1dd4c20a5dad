package io.pgmux.proxy.client;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a janitor pass looks at: query_wait_notify (on by default) concerns only clients waiting for a server, so a
 * pass over an idle proxy must not cost one check per connected client; client_login_timeout (on by default) only
 * clients logging in, so a pass with none wakes no event loop.
 */
class ClientTimeoutsTest {

    @Test
    void aPassLooksAtNoLoggedInClientForTheWaitNoticeWhileNoneWaits() {
        ClientTimeouts timeouts = new ClientTimeouts(List.of(), () -> false, () -> { }, 60_000);
        timeouts.waitNotifySeconds(5);
        assertFalse(timeouts.checksLoggedInClients());
    }

    @Test
    void aPassLooksAtTheLoggedInClientsForTheWaitNoticeWhileOneWaits() {
        ClientTimeouts timeouts = new ClientTimeouts(List.of(), () -> true, () -> { }, 60_000);
        timeouts.waitNotifySeconds(5);
        assertTrue(timeouts.checksLoggedInClients());
    }

    @Test
    void aPassWakesNoEventLoopForTheLoginTimeoutWhileNoClientLogsIn() {
        ClientTimeouts timeouts = new ClientTimeouts(List.of(), () -> false, () -> { }, 60_000);
        assertFalse(timeouts.checksLoggingInClients());
    }
}
