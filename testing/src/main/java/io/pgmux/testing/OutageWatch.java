package io.pgmux.testing;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What clients of a pooler see while its server goes away and comes back. A prober runs {@code SELECT 1} every
 * few milliseconds on a connection of its own and notes each success and error; idle clients, each connected and
 * used once before, sit outside any transaction until {@link #runIdleClients()}, then run one transaction each.
 * The time without service runs from the first connection the server refused to the prober's first success
 * after it; {@link #serverBack()} marks when the server accepted connections again.
 */
public final class OutageWatch implements AutoCloseable {
    private static final long PROBE_INTERVAL_MILLIS = 5;

    /** Opens a connection through the pooler under test. */
    @FunctionalInterface
    public interface ConnectionSource {
        Connection open() throws SQLException;
    }

    /**
     * @param restartMillis from {@link #outageBegins()} to {@link #serverBack()}: how long the restart took
     * @param withoutServiceMillis from the first connection the server refused (see
     *     {@link #runIdleClientsOnceRefusedBy}) to the end of the prober's first statement that started after it
     *     and succeeded
     * @param afterServerBackMillis from {@link #serverBack()} to the end of that statement (0 if before)
     * @param slowestIdleClientMillis from {@link #serverBack()} to the last idle client's transaction ending
     * @param idleClientErrors what the idle clients saw, each error as SQLSTATE and message
     * @param proberErrors errors of the prober, whose statement may have run on the dying server
     */
    public record Report(long restartMillis, long withoutServiceMillis, long afterServerBackMillis,
            long slowestIdleClientMillis, int idleClients, List<String> idleClientErrors, List<String> proberErrors) {
    }

    private final ConnectionSource source;
    private final List<Connection> idle = new ArrayList<>();
    private volatile Connection probe;
    private final Thread prober;
    private final Queue<String> proberErrors = new ConcurrentLinkedQueue<>();
    private final Queue<String> idleErrors = new ConcurrentLinkedQueue<>();
    private final AtomicLong idleDoneNanos = new AtomicLong();
    private final CountDownLatch idleDone;
    private volatile boolean running = true;
    private volatile long outageBeganNanos;
    /** When the server was first seen refusing a connection: the outage had begun. */
    private volatile long refusedNanos;
    private volatile long serverBackNanos;
    /** When the first probe that started after the server refused a connection succeeded. */
    private final AtomicLong firstAfterOutage = new AtomicLong();

    private OutageWatch(ConnectionSource source, int idleClients) throws SQLException {
        this.source = source;
        for (int i = 0; i < idleClients; i++) {
            Connection c = source.open();
            idle.add(c);
            selectOne(c);
        }
        idleDone = new CountDownLatch(idleClients);
        probe = source.open();
        selectOne(probe);
        prober = new Thread(this::probe, "outage-prober");
        prober.setDaemon(true);
        prober.start();
    }

    /** Connects {@code idleClients} idle clients and the prober, and starts probing. */
    public static OutageWatch start(ConnectionSource source, int idleClients) throws SQLException {
        return new OutageWatch(source, idleClients);
    }

    /** Call just before the server is stopped or restarted. */
    public void outageBegins() {
        outageBeganNanos = System.nanoTime();
    }

    /** Call once the server accepts connections again. */
    public void serverBack() {
        serverBackNanos = System.nanoTime();
    }

    /** Each idle client runs one transaction now, on a thread of its own; they were outside any transaction. */
    public void runIdleClients() {
        for (Connection c : idle) {
            Thread t = new Thread(() -> {
                try {
                    c.setAutoCommit(false);
                    selectOne(c);
                    c.commit();
                } catch (SQLException e) {
                    idleErrors.add(e.getSQLState() + " " + e.getMessage());
                } finally {
                    idleDoneNanos.accumulateAndGet(System.nanoTime(), Math::max);
                    idleDone.countDown();
                }
            }, "outage-idle-client");
            t.setDaemon(true);
            t.start();
        }
    }

    /**
     * Runs the idle clients' transactions (see {@link #runIdleClients()}) as soon as {@code db}'s server refuses a
     * new connection, so that they start after it went away; returns at once.
     */
    public void runIdleClientsOnceRefusedBy(TestDatabase db) {
        runIdleClientsOnceRefusedBy(db::connect);
    }

    /** The same for a server reached directly through {@code server}: a primary about to stop, say. */
    public void runIdleClientsOnceRefusedBy(ConnectionSource server) {
        Thread waiter = new Thread(() -> {
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
            while (System.nanoTime() < deadline) {
                try (Connection c = server.open()) {
                    Thread.sleep(PROBE_INTERVAL_MILLIS);
                } catch (SQLException refused) {
                    refusedNanos = System.nanoTime();
                    break;
                } catch (InterruptedException e) {
                    return;
                }
            }
            runIdleClients();
        }, "outage-idle-trigger");
        waiter.setDaemon(true);
        waiter.start();
    }

    /** Waits for the idle clients and a probe success after the server came back, then stops probing. */
    public Report report(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        if (!idleDone.await(timeout, unit)) {
            throw new AssertionError("idle clients still waiting after " + timeout + " " + unit);
        }
        while (firstAfterOutage.get() == 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("the prober had no success within " + timeout + " " + unit
                        + " of the server's return; its errors: " + proberErrors);
            }
            Thread.sleep(PROBE_INTERVAL_MILLIS);
        }
        running = false;
        prober.join(unit.toMillis(timeout));
        long back = serverBackNanos;
        long began = outageBeganNanos;
        long served = firstAfterOutage.get();
        return new Report(millis(back - began), millis(served - refusedNanos), Math.max(0, millis(served - back)),
                Math.max(0, millis(idleDoneNanos.get() - back)),
                idle.size(), List.copyOf(idleErrors), List.copyOf(proberErrors));
    }

    private void probe() {
        while (running) {
            long start = System.nanoTime();
            try {
                selectOne(probe);
                long refused = refusedNanos;
                if (refused != 0 && start - refused >= 0) {
                    firstAfterOutage.compareAndSet(0, System.nanoTime());
                }
            } catch (SQLException e) {
                proberErrors.add(e.getSQLState() + " " + e.getMessage());
                if (isClosed(probe)) {
                    reconnect();
                }
            }
            try {
                Thread.sleep(PROBE_INTERVAL_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** The prober's connection was lost with the statement it ran: it connects again, as an application would. */
    private void reconnect() {
        while (running) {
            try {
                probe = source.open();
                return;
            } catch (SQLException e) {
                proberErrors.add(e.getSQLState() + " " + e.getMessage());
            }
        }
    }

    private static boolean isClosed(Connection c) {
        try {
            return c.isClosed();
        } catch (SQLException e) {
            return true;
        }
    }

    private static void selectOne(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SELECT 1");
        }
    }

    private static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    @Override
    public void close() {
        running = false;
        for (Connection c : idle) {
            closeQuietly(c);
        }
        closeQuietly(probe);
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException e) {
            // the server may have closed it first
        }
    }
}
