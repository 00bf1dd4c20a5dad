package io.pgmux.proxy.fleet;

import io.pgmux.testing.Await;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A proxy without a fleet keeps no thread for fleet joins once the start's configuration has been looked at. */
class ProxyFleetsThreadTest {

    @Test
    void theFleetThreadEndsOnceItHasNothingToDo() {
        ProxyFleets fleets = new ProxyFleets(database -> database, key -> {
            throw new AssertionError("no fleet, no connector");
        });
        try {
            fleets.configure(Map.of(), List.of());
            Await.until(() -> Thread.getAllStackTraces().keySet().stream()
                            .noneMatch(t -> t.getName().equals("pgmux-fleet-members")),
                    Duration.ofSeconds(ProxyFleets.IDLE_SECONDS + 20), "the fleet thread to end while idle");
        } finally {
            fleets.close();
        }
    }
}
