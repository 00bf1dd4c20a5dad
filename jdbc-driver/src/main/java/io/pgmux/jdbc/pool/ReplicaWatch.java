package io.pgmux.jdbc.pool;

import io.pgmux.core.pool.Lsn;
import io.pgmux.core.pool.PrimaryWalHistory;
import io.pgmux.core.pool.Replica;
import io.pgmux.core.pool.ReplicaSet;
import io.pgmux.jdbc.physical.PgjdbcConnector;
import io.pgmux.jdbc.physical.PhysicalConnection;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks each host of a read-routing pool every replicaCheckPeriod, on a connection of its own outside the
 * pools: whether it is a standby ({@code pg_is_in_recovery()}, targetServerType's test) and how far it has
 * replayed. A promotion thus moves reads off the promoted server at the next check, and a standby that stops
 * answering leaves the read set until it answers again. All pools' checks run on one daemon thread; one
 * pool's hosts are checked one after the other, so its check connections are only ever used by that thread.
 */
final class ReplicaWatch implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ReplicaWatch.class);
    /**
     * Whether the host is a standby, and how far it has replayed; for the primary, how far it has flushed its WAL
     * (what its standbys can have received), from which the standbys' lag is told.
     */
    private static final String CHECK = "SELECT pg_is_in_recovery(), CASE WHEN pg_is_in_recovery()"
            + " THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_flush_lsn() END::text";
    /** A host that does not answer a check within this long is out of the read set until the next one. */
    private static final int CHECK_TIMEOUT_SECONDS = 5;

    private final String poolName;
    private final ReplicaSet<PhysicalConnection> set;
    private final List<PgjdbcConnector> connectors;
    private final Connection[] checks;
    private final ScheduledFuture<?> rounds;
    /** A round asked for by {@link #checkSoon} is queued and has not started yet. */
    private final AtomicBoolean soon = new AtomicBoolean();
    private final PrimaryWalHistory primaryWal = new PrimaryWalHistory();
    /** replicaMaxLag in nanoseconds; 0: no bound. */
    private final long maxLagNanos;
    private volatile boolean closed;

    /** Checks every host once now, then every {@code period}; {@code connectors} reach each replica alone. */
    ReplicaWatch(String poolName, ReplicaSet<PhysicalConnection> set, List<PgjdbcConnector> connectors,
                 Duration period, Duration maxLag) {
        this.poolName = poolName;
        this.maxLagNanos = maxLag.toNanos();
        this.set = set;
        this.connectors = List.copyOf(connectors);
        this.checks = new Connection[connectors.size()];
        // the first round before any borrow, so that the first read-only transaction finds the standbys
        try {
            Rounds.EXECUTOR.submit(this::round).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException e) {
            log.warn("pool {}: the first check of its hosts failed", poolName, e.getCause());
        }
        this.rounds = Rounds.EXECUTOR.scheduleWithFixedDelay(this::round, period.toNanos(), period.toNanos(),
                TimeUnit.NANOSECONDS);
    }

    /**
     * Runs a round as soon as the checks' thread is free, for a read waiting for a standby to replay a write:
     * one round however many reads ask before it starts.
     */
    void checkSoon() {
        if (!soon.get() && soon.compareAndSet(false, true)) {
            Rounds.EXECUTOR.execute(() -> {
                soon.set(false);
                round();
            });
        }
    }

    private void round() {
        if (closed) {
            return;
        }
        List<Replica<PhysicalConnection>> replicas = set.replicas();
        // the primary first, so that the standbys' lag is told against its position of this round
        for (int i = 0; i < checks.length; i++) {
            if (!replicas.get(i).isStandby()) {
                check(i, replicas.get(i));
            }
        }
        for (int i = 0; i < checks.length; i++) {
            if (replicas.get(i).isStandby()) {
                check(i, replicas.get(i));
            }
        }
    }

    private void check(int i, Replica<PhysicalConnection> replica) {
        boolean wasStandby = replica.isStandby();
        try {
            if (checks[i] == null) {
                checks[i] = connectors.get(i).connectUnpooled(CHECK_TIMEOUT_SECONDS);
            }
            try (Statement st = checks[i].createStatement(); ResultSet rs = st.executeQuery(CHECK)) {
                rs.next();
                boolean standby = rs.getBoolean(1);
                long lsn = Lsn.parse(rs.getString(2));
                long now = System.nanoTime();
                if (standby) {
                    lagFound(replica, primaryWal.lagNanos(lsn, now));
                } else {
                    primaryWal.add(now, lsn);
                    set.lagged(replica, 0, false);
                }
                set.checked(replica, standby, standby ? lsn : 0);
            }
            if (wasStandby != replica.isStandby()) {
                log.info("pool {}: {} is {} a standby: {} the read set", poolName, replica.host(),
                        replica.isStandby() ? "now" : "no longer", replica.isStandby() ? "it joins" : "it leaves");
            }
        } catch (SQLException | RuntimeException e) {
            closeCheck(i);
            set.unreachable(replica);
            if (wasStandby) {
                log.warn("pool {}: standby {} did not answer its check, it leaves the read set: {}", poolName,
                        replica.host(), e.getMessage());
            } else {
                log.debug("pool {}: host {} did not answer its check: {}", poolName, replica.host(), e.getMessage());
            }
        }
    }

    /** A standby's lag as this check found it: over replicaMaxLag, it leaves the read set until it catches up. */
    private void lagFound(Replica<PhysicalConnection> replica, long lagNanos) {
        boolean over = maxLagNanos > 0 && lagNanos > maxLagNanos;
        if (over != replica.isLagging()) {
            log.info("pool {}: standby {} lags {} ms behind the primary, {} replicaMaxLag: it {} the read set",
                    poolName, replica.host(), TimeUnit.NANOSECONDS.toMillis(lagNanos), over ? "over" : "within",
                    over ? "leaves" : "joins");
        }
        set.lagged(replica, lagNanos, over);
    }

    private void closeCheck(int i) {
        Connection c = checks[i];
        checks[i] = null;
        if (c != null) {
            try {
                c.close();
            } catch (SQLException e) {
                log.debug("pool {}: closing a check connection failed", poolName, e);
            }
        }
    }

    /** Stops the checks and closes their connections, on the checks' thread, after any round in progress. */
    @Override
    public void close() {
        closed = true;
        rounds.cancel(false);
        Rounds.EXECUTOR.execute(() -> {
            for (int i = 0; i < checks.length; i++) {
                closeCheck(i);
            }
        });
    }

    /** The one thread of every pool's checks. */
    private static final class Rounds {
        static final ScheduledExecutorService EXECUTOR = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "pgmux-replica-watch");
            t.setDaemon(true);
            return t;
        });
    }
}
