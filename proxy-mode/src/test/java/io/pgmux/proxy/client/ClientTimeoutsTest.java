package io.pgmux.proxy.client;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a janitor pass looks at: query_wait_notify (on by default) concerns only clients waiting for a server, so a
 * pass over an idle proxy must not cost one check per connected client; client_login_timeout (on by default) only
 * clients logging in, so a pass with none wakes no event loop; and with neither, nor a client timeout set, idle
 * clients leave the janitor nothing to do, so it may sleep as with no client.
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

    /** Logged-in clients as the pass sees them: only how many there are matters to these rules. */
    private static Collection<ClientConnection> loggedIn(int count) {
        return Collections.nCopies(count, null);
    }

    @Test
    void idleClientsUnderPgBouncersDefaultsLeaveNoClientTimeoutDue() {
        ClientTimeouts timeouts = new ClientTimeouts(loggedIn(1000), () -> false, () -> { }, 60_000);
        timeouts.waitNotifySeconds(5);
        assertTrue(timeouts.nothingDue());
    }

    @Test
    void aClientIdleTimeoutIsDueForIdleClients() {
        ClientTimeouts timeouts = new ClientTimeouts(loggedIn(1000), () -> false, () -> { }, 60_000);
        timeouts.limits(new ClientTimeouts.Limits(Duration.ofSeconds(30), Duration.ZERO, Duration.ZERO,
                Duration.ZERO), Map.of());
        assertFalse(timeouts.nothingDue());
    }

    @Test
    void aUsersOwnQueryTimeoutIsDueForIdleClients() {
        ClientTimeouts timeouts = new ClientTimeouts(loggedIn(1000), () -> false, () -> { }, 60_000);
        timeouts.limits(ClientTimeouts.Limits.NONE, Map.of("app", new ClientTimeouts.Limits(Duration.ZERO,
                Duration.ZERO, Duration.ofSeconds(10), Duration.ZERO)));
        assertFalse(timeouts.nothingDue());
    }

    @Test
    void aClientWaitingForAServerCanBeDueItsWaitNotice() {
        ClientTimeouts timeouts = new ClientTimeouts(loggedIn(1000), () -> true, () -> { }, 60_000);
        timeouts.waitNotifySeconds(5);
        assertFalse(timeouts.nothingDue());
    }

    @Test
    void serverFastCloseIsDueForLinkedClients() {
        ClientTimeouts timeouts = new ClientTimeouts(loggedIn(1000), () -> false, () -> { }, 60_000);
        timeouts.fastClose(true);
        assertFalse(timeouts.nothingDue());
    }
}
