package io.pgmux.core.pool;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.pool.FakeConnector.Conn;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * While nothing can be due soon the janitor sleeps its quiet period, so that an idle process is not woken every
 * period for nothing; whatever makes something due wakes it.
 */
class JanitorQuietPeriodTest {

    private static final Duration AN_HOUR = Duration.ofHours(1);

    @Test
    void aQuietRegistrySleepsItsQuietPeriodBetweenPasses() throws InterruptedException {
        try (PoolRegistry<Conn> registry = PoolRegistry.<Conn>builder().connector(new FakeConnector())
                .janitorPeriod(Duration.ofMillis(10)).build()) {
            Semaphore passes = new Semaphore(0);
            registry.addJanitorChore(passes::release);
            registry.janitorQuietPeriod(AN_HOUR, () -> true);
            // the pass already scheduled at the period, which schedules the next one an hour away
            assertTrue(passes.tryAcquire(10, TimeUnit.SECONDS), "no janitor pass");
            passes.drainPermits();
            assertFalse(passes.tryAcquire(500, TimeUnit.MILLISECONDS), "the quiet janitor ran at its period");
        }
    }

    @Test
    void aSleepingJanitorWokenRunsItsNextPassAtItsPeriod() throws InterruptedException {
        try (PoolRegistry<Conn> registry = PoolRegistry.<Conn>builder().connector(new FakeConnector())
                .janitorPeriod(Duration.ofMillis(10)).build()) {
            Semaphore passes = new Semaphore(0);
            registry.addJanitorChore(passes::release);
            registry.janitorQuietPeriod(AN_HOUR, () -> true);
            assertTrue(passes.tryAcquire(10, TimeUnit.SECONDS), "no janitor pass");
            passes.drainPermits();
            // a wake while the pass that released the permit still runs finds the janitor not asleep yet, and the
            // pass, with nothing due, then sleeps the quiet period: wake it until it is asleep to be woken
            boolean passed = false;
            for (int i = 0; i < 50 && !passed; i++) {
                registry.wakeJanitor();
                passed = passes.tryAcquire(200, TimeUnit.MILLISECONDS);
            }
            assertTrue(passed, "the woken janitor slept on");
        }
    }

    @Test
    void theJanitorKeepsItsPeriodWhileTheOwnerHasSomethingDue() throws InterruptedException {
        try (PoolRegistry<Conn> registry = PoolRegistry.<Conn>builder().connector(new FakeConnector())
                .janitorPeriod(Duration.ofMillis(10)).build()) {
            registry.janitorQuietPeriod(AN_HOUR, () -> false);
            CountDownLatch passes = new CountDownLatch(3);
            registry.addJanitorChore(passes::countDown);
            assertTrue(passes.await(10, TimeUnit.SECONDS), "the janitor slept though its owner had work due");
        }
    }

    @Test
    void aClientWaitingForAServerWakesTheJanitor() throws InterruptedException {
        FakeConnector connector = new FakeConnector();
        connector.holdLogins = true;
        try (PoolRegistry<Conn> registry = PoolRegistry.<Conn>builder().connector(connector)
                .janitorPeriod(Duration.ofMillis(10)).build()) {
            registry.janitorQuietPeriod(AN_HOUR, () -> true);
            Semaphore passes = new Semaphore(0);
            registry.addJanitorChore(passes::release);
            assertTrue(passes.tryAcquire(10, TimeUnit.SECONDS), "no janitor pass");
            registry.pool("db", "u").acquireAsync();
            passes.drainPermits();
            // query_wait_timeout and server_connect_timeout are the janitor's to enforce while they run
            assertTrue(passes.tryAcquire(3, 10, TimeUnit.SECONDS), "the janitor slept through a client's wait");
        }
    }
}
