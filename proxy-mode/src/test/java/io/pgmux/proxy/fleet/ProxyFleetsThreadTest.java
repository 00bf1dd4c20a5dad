package io.pgmux.proxy.fleet;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A proxy without a fleet keeps no fleet thread: a fleet's thread exists while the fleet has members. */
class ProxyFleetsThreadTest {

    @Test
    void aProxyWithoutAFleetHasNoFleetThread() {
        ProxyFleets fleets = new ProxyFleets(database -> database, key -> {
            throw new AssertionError("no fleet, no connector");
        }, work -> {
            throw new AssertionError("no fleet, nothing to join");
        });
        try {
            fleets.configure(Map.of(), List.of());
            assertTrue(Thread.getAllStackTraces().keySet().stream()
                    .noneMatch(t -> t.getName().startsWith("pgmux-fleet")),
                    "a fleet thread runs without a fleet");
        } finally {
            fleets.close();
        }
    }
}
