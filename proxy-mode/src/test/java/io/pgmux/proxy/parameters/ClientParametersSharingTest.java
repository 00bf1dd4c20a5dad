package io.pgmux.proxy.parameters;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Clients of a pool told the same values at their welcome share them, as an idle client would otherwise keep a copy
 * of each; a value that changes for one client changes for that client alone.
 */
class ClientParametersSharingTest {
    private static final Map<String, String> SERVER_REPORTS = Map.of("client_encoding", "UTF8", "DateStyle",
            "ISO, MDY", "TimeZone", "UTC", "application_name", "", "server_version", "17.2");

    private final AtomicReference<String[]> lastWelcomed = new AtomicReference<>();

    private ClientParameters client(String applicationName) {
        // a string of its own, as each client's startup packet is decoded
        ClientParameters client = ClientParameters.fromStartup(
                Map.of("application_name", new String(applicationName.toCharArray())), Set.of());
        client.welcome(SERVER_REPORTS, Map.of(), lastWelcomed);
        return client;
    }

    @Test
    void clientsWelcomedWithTheSameApplicationNameShareOneString() {
        assertSame(client("billing").applicationName(), client("billing").applicationName());
    }

    @Test
    void aClientWithAnotherApplicationNameKeepsItsOwn() {
        client("billing");
        assertEquals("reports", client("reports").applicationName());
        assertEquals("billing", client("billing").applicationName());
    }

    @Test
    void aParameterStatusChangesTheValueOfItsClientOnly() {
        ClientParameters first = client("billing");
        ClientParameters second = client("billing");
        first.onParameterStatus("application_name", "billing-batch");
        assertEquals("billing-batch", first.applicationName());
        assertEquals("billing", second.applicationName());
        assertEquals("billing", client("billing").applicationName());
    }

    @Test
    void aChangedValueIsReplayedOnAServerTheOtherClientMatched() {
        ServerParameters server = new ServerParameters();
        SERVER_REPORTS.forEach(server::onParameterStatus);
        ClientParameters first = client("billing");
        ClientParameters second = client("billing");
        assertNotNull(first.replayFor(server), "the server's application_name is empty");
        server.onParameterStatus("application_name", "billing");
        first.replayed(server);
        assertNull(second.replayFor(server));
        second.onParameterStatus("TimeZone", "Europe/Paris");
        assertNotNull(second.replayFor(server), "TimeZone differs now");
        assertNull(first.replayFor(server), "the first client's TimeZone did not change");
    }

    @Test
    void beforeItsWelcomeAClientShowsTheApplicationNameItAskedFor() {
        ClientParameters client = ClientParameters.fromStartup(Map.of("application_name", "billing"), Set.of());
        assertEquals("billing", client.applicationName());
    }
}
