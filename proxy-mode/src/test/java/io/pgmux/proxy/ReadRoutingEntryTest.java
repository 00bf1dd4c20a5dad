package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pgmux.proxy.server.ReadRouting;
import io.pgmux.proxy.server.ServerTarget;
import io.pgmux.proxy.server.TargetSessionAttrs;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** pgmux's read routing keys of a [databases] entry: off by default, their defaults, and what is refused. */
class ReadRoutingEntryTest {

    private static ServerTarget target(String keys) {
        return DatabaseEntry.parse("app", "host=h1,h2 port=5432,5433 " + keys).target();
    }

    @Test
    void anEntryRoutesNothingByDefault() {
        ServerTarget t = target("");
        assertNull(t.readRouting());
        assertEquals(TargetSessionAttrs.ANY, t.targetSessionAttrs());
    }

    @Test
    void readRoutingReplicasLogsTheEntrysPoolInToThePrimaryWithItsDefaults() {
        ServerTarget t = target("read_routing=replicas");
        assertEquals(new ReadRouting(true, Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ZERO), t.readRouting());
        assertEquals(TargetSessionAttrs.PRIMARY, t.targetSessionAttrs());
    }

    @Test
    void theWaitTheCheckPeriodAndReadYourWritesAreTheEntrys() {
        assertEquals(new ReadRouting(false, Duration.ofSeconds(2), Duration.ofMillis(250), Duration.ZERO),
                target("read_routing=replicas read_your_writes=0 replica_wait_timeout=2 replica_check_period=0.25")
                        .readRouting());
    }

    @Test
    void replicaMaxLagIsTheEntrysBoundInSeconds() {
        assertEquals(Duration.ofMillis(1500), target("read_routing=replicas replica_max_lag=1.5").readRouting()
                .replicaMaxLag());
    }

    @Test
    void replicaMaxLagWithoutReadRoutingIsRefusedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> target("replica_max_lag=1"));
        assertEquals("database app: replica_max_lag needs read_routing=replicas", e.getMessage());
    }

    @Test
    void aReadRoutingKeyWithoutReadRoutingIsRefusedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> target("replica_wait_timeout=1"));
        assertEquals("database app: replica_wait_timeout needs read_routing=replicas", e.getMessage());
    }

    @Test
    void anUnknownReadRoutingIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> target("read_routing=all"));
        assertEquals("database app: read_routing must be off or replicas, not \"all\"", e.getMessage());
    }

    @Test
    void aTargetSessionAttrsThatIsNotThePrimaryContradictsReadRouting() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> target("read_routing=replicas target_session_attrs=standby"));
        assertEquals("database app: read_routing=replicas sends writes to the primary: target_session_attrs=standby"
                + " contradicts it", e.getMessage());
    }

    @Test
    void aCheckPeriodOfZeroIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> target("read_routing=replicas replica_check_period=0"));
        assertEquals("database app: replica_check_period must be more than 0 seconds", e.getMessage());
    }
}
