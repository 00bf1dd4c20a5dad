package io.pgmux.proxy.parameters;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What a client's settings need replayed on a server connection, when a server was found to have them before: the
 * finding holds only while neither the server's parameters nor the client's settings changed.
 */
class ClientParametersReplayTest {
    private static final Map<String, String> SERVER_REPORTS = Map.of("client_encoding", "UTF8", "DateStyle",
            "ISO, MDY", "TimeZone", "UTC", "server_version", "17.2");

    private static ServerParameters server() {
        ServerParameters server = new ServerParameters();
        SERVER_REPORTS.forEach(server::onParameterStatus);
        return server;
    }

    private static ClientParameters client(Map<String, String> startup) {
        ClientParameters client = ClientParameters.fromStartup(startup, Set.of());
        client.welcome(SERVER_REPORTS, Map.of());
        return client;
    }

    @Test
    void aSecondClientWithTheSameSettingsNeedsNoReplayOnAServerTheFirstMatched() {
        ServerParameters server = server();
        assertNull(client(Map.of()).replayFor(server));
        assertNull(client(Map.of()).replayFor(server));
    }

    @Test
    void aServerThatReportsANewValueAfterAMatchIsGivenTheClientsValueAgain() {
        ServerParameters server = server();
        ClientParameters client = client(Map.of());
        assertNull(client.replayFor(server));
        server.onParameterStatus("TimeZone", "Europe/Paris");
        assertNotNull(client.replayFor(server), "TimeZone differs now");
    }

    @Test
    void aServerResetAfterAMatchIsGivenTheClientsStartupSettingAgain() {
        ServerParameters server = server();
        ClientParameters client = client(Map.of("search_path", "app"));
        assertNotNull(client.replayFor(server));
        client.replayed(server);
        assertNull(client.replayFor(server), "the replay gave the server the client's search_path");
        server.reset();
        assertNotNull(client.replayFor(server), "server_reset_query took search_path away");
    }

    @Test
    void aClientWhoseValueChangedAfterAMatchGetsItReplayed() {
        ServerParameters server = server();
        ClientParameters client = client(Map.of());
        ClientParameters other = client(Map.of());
        assertNull(client.replayFor(server));
        other.onParameterStatus("DateStyle", "German, DMY");
        assertNotNull(other.replayFor(server), "the other client's DateStyle differs from the server's now");
        assertNull(client.replayFor(server));
    }

    @Test
    void aClientWhoseSessionSettingsWereCapturedOnAnotherServerGetsThemReplayed() {
        ServerParameters first = server();
        ServerParameters second = server();
        ClientParameters client = client(Map.of());
        assertNull(client.replayFor(second));
        String[] prelude = new String[PoolerPrelude.overridden(17).length * 2 + 1];
        assertTrue(client.captured(List.of(prelude, new String[] {"work_mem", "64MB"}), first));
        assertNotNull(client.replayFor(second), "the client's work_mem is not set on the second server");
    }
}
