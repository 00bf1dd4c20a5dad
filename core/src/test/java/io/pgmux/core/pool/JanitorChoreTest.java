package io.pgmux.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.pool.FakeConnector.Conn;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The registry owner's periodic work runs on the janitor's clock, not on timers of its own. */
class JanitorChoreTest {

    @Test
    void aChoreRunsOnEveryJanitorPass() {
        try (PoolRegistry<Conn> registry = PoolRegistry.<Conn>builder().connector(new FakeConnector())
                .janitorPeriod(Duration.ZERO).build()) {
            AtomicInteger runs = new AtomicInteger();
            registry.addJanitorChore(runs::incrementAndGet);
            registry.runJanitor();
            registry.runJanitor();
            assertEquals(2, runs.get());
        }
    }

    @Test
    void theScheduledJanitorRunsTheChoresAtItsPeriod() throws InterruptedException {
        try (PoolRegistry<Conn> registry = PoolRegistry.<Conn>builder().connector(new FakeConnector())
                .janitorPeriod(Duration.ofMillis(10)).build()) {
            CountDownLatch passes = new CountDownLatch(3);
            registry.addJanitorChore(passes::countDown);
            assertTrue(passes.await(10, TimeUnit.SECONDS), "the chore did not run on three janitor passes");
        }
    }

    @Test
    void theJanitorGoesOnAtANewPeriod() throws InterruptedException {
        try (PoolRegistry<Conn> registry = PoolRegistry.<Conn>builder().connector(new FakeConnector())
                .janitorPeriod(Duration.ofMillis(10)).build()) {
            CountDownLatch slowed = new CountDownLatch(1);
            registry.addJanitorChore(slowed::countDown);
            assertTrue(slowed.await(10, TimeUnit.SECONDS), "no janitor pass");
            registry.janitorPeriod(Duration.ofMillis(20));
            CountDownLatch passes = new CountDownLatch(3);
            registry.addJanitorChore(passes::countDown);
            assertTrue(passes.await(10, TimeUnit.SECONDS), "the janitor stopped after its period changed");
        }
    }

    @Test
    void aJanitorPeriodOfZeroOrLessIsRefused() {
        try (PoolRegistry<Conn> registry = PoolRegistry.<Conn>builder().connector(new FakeConnector())
                .janitorPeriod(Duration.ofMillis(10)).build()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> registry.janitorPeriod(Duration.ZERO));
            assertEquals("janitor period must be above zero: PT0S", e.getMessage());
        }
    }
}
