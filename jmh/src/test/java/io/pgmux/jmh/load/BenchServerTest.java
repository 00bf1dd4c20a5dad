package io.pgmux.jmh.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pgmux.proxy.config.TlsMode;
import io.pgmux.proxy.server.ServerTarget;
import io.pgmux.proxy.server.ServerTargets;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BenchServerTest {
    private static final Set<String> KNOWN = Set.of("url", "user", "password");

    @Test
    void aUrlBecomesTheProxysAddressWithItsLoginAndWithoutTls() throws Exception {
        try (BenchServer server = BenchServer.fromOptions(LoadOptions.parse(new String[] {
                "--url", "jdbc:postgresql://db.example:5433/app", "--user", "bench", "--password", "p@ss w+1"}, KNOWN))) {
            ServerTarget target = ServerTargets.fromUrl(server.proxyUrl());
            assertEquals(new ServerTarget("db.example", 5433, "app", "bench", "p@ss w+1", TlsMode.DISABLE), target);
        }
    }

    @Test
    void theDefaultPortIsPostgresqls() throws Exception {
        // the password is given: without one it comes from PGPASSWORD, which the one running the tests may have set
        try (BenchServer server = BenchServer.fromOptions(LoadOptions.parse(new String[] {
                "--url", "jdbc:postgresql://db.example/app", "--user", "bench", "--password", "pw"}, KNOWN))) {
            assertEquals("postgresql://bench:pw@db.example:5432/app?sslmode=disable", server.proxyUrl());
        }
    }

    @Test
    void aUrlWithoutADatabaseIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> BenchServer.fromOptions(
                LoadOptions.parse(new String[] {"--url", "jdbc:postgresql://db.example:5433/"}, KNOWN)));
    }
}
