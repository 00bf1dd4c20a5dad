package io.pgmux.proxy.replicas;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.pgmux.core.pool.Lease;
import io.pgmux.core.pool.Lsn;
import io.pgmux.core.pool.Pool;
import io.pgmux.core.pool.PrimaryWalHistory;
import io.pgmux.core.pool.ReadYourWritesToken;
import io.pgmux.core.pool.Replica;
import io.pgmux.core.pool.ReplicaMetrics;
import io.pgmux.core.pool.ReplicaSet;
import io.pgmux.core.stats.MetricsTrackerFactory;
import io.pgmux.proxy.parameters.PoolerPrelude;
import io.pgmux.proxy.server.ReadRouting;
import io.pgmux.proxy.server.ServerConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The read routing of one pool (database, user) of a {@code read_routing = replicas} entry: every host of its list
 * with a pool of its own, and the checks that tell which are standbys and how far each has replayed. Every
 * replica_check_period each host is asked, on a server connection of its own pool and with the pooler's own
 * request machinery (as auth_query runs), {@code pg_is_in_recovery()} and its replay position (a primary: its
 * current WAL position, which the lag is measured from, and its cluster's system identifier and timeline, which
 * read-your-writes tokens name). A host whose check fails, or has not answered by the next
 * one, leaves the read set until a check finds it a standby again. Nothing blocks: each step runs when the previous
 * one completes. A standby whose replay lags the primary by more than replica_max_lag (measured as the JDBC face
 * measures replicaMaxLag, by {@link PrimaryWalHistory}) leaves the read set until a check finds it within. Counts
 * what SHOW REPLICAS shows.
 */
public final class ReplicaRoutes {
    private static final Logger log = LoggerFactory.getLogger(ReplicaRoutes.class);
    /** How often the hosts are checked while a read waits for a standby's replay. */
    static final long EARLY_CHECK_NANOS = 5_000_000;
    private static final String CHECK = "SELECT pg_catalog.pg_is_in_recovery(), (CASE WHEN pg_catalog.pg_is_in_recovery()"
            + " THEN pg_catalog.pg_last_wal_replay_lsn() ELSE pg_catalog.pg_current_wal_lsn() END)::text,"
            + " (SELECT system_identifier FROM pg_catalog.pg_control_system())::text,"
            + " (SELECT timeline_id FROM pg_catalog.pg_control_checkpoint())::text";

    /** What the last check of a host found. */
    public enum Role {
        UNKNOWN, PRIMARY, STANDBY, UNREACHABLE;

        public String configName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private final Pool<ServerConnection> primary;
    private final ReadRouting settings;
    private final ReplicaSet<ServerConnection> set;
    private final AtomicBoolean[] inFlight;
    private final Role[] roles;
    /** The MXBean and meters of the routing, published with it and withdrawn when its pool closes. */
    private final ReplicaMetrics metrics;
    /** The primary's WAL position at its last check; 0 before. */
    private final AtomicLong primaryLsn = new AtomicLong();
    /** The primary's cluster, as its last check found it, which read-your-writes tokens name; null before. */
    private volatile ReadYourWritesToken primaryCluster;
    /** Guarded by itself: checks complete on their server connections' event loops, not all on {@code loop}. */
    private final PrimaryWalHistory primaryWal = new PrimaryWalHistory();
    private final EventExecutor loop;
    private final ScheduledFuture<?> rounds;
    private final AtomicBoolean soon = new AtomicBoolean();
    /** When the check in flight of each host started, on {@link #loop}. */
    private final long[] checkStarted;
    /** When the last check asked for by a waiting read ran; 0 before. */
    private volatile long lastEarlyRound;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * Checks {@code hosts} (each host's own pool, named {@code host:port}) every replica_check_period on
     * {@code loop}, the first round at once; its figures published as the JDBC face publishes its own.
     */
    public ReplicaRoutes(Pool<ServerConnection> primary, ReadRouting settings, List<Replica<ServerConnection>> hosts,
            EventExecutor loop, boolean registerMbeans, MetricsTrackerFactory trackers) {
        this.primary = primary;
        this.settings = settings;
        this.set = new ReplicaSet<>(hosts);
        int n = hosts.size();
        this.inFlight = new AtomicBoolean[n];
        this.roles = new Role[n];
        this.checkStarted = new long[n];
        for (int i = 0; i < n; i++) {
            inFlight[i] = new AtomicBoolean();
            roles[i] = Role.UNKNOWN;
        }
        this.loop = loop;
        this.metrics = ReplicaMetrics.publish(primary, set, registerMbeans, trackers);
        long period = settings.replicaCheckPeriod().toNanos();
        this.rounds = loop.scheduleWithFixedDelay(this::round, 0, period, TimeUnit.NANOSECONDS);
    }

    public Pool<ServerConnection> primary() {
        return primary;
    }

    public ReadRouting settings() {
        return settings;
    }

    public List<Replica<ServerConnection>> hosts() {
        return set.replicas();
    }

    /** The read-your-writes token naming WAL position {@code lsn} of the primary; null before a check found it. */
    public ReadYourWritesToken token(long lsn) {
        ReadYourWritesToken cluster = primaryCluster;
        return cluster == null ? null
                : new ReadYourWritesToken(cluster.systemIdentifier(), cluster.timeline(), lsn);
    }

    /** The next standby in turn that has replayed {@code minLsn}, counted as a read routed to it; null if none. */
    public Replica<ServerConnection> pick(long minLsn) {
        Replica<ServerConnection> r = set.pick(minLsn);
        if (r != null) {
            r.readRouted();
        }
        return r;
    }

    /** Whether some host is a standby now, whatever it has replayed. */
    public boolean hasStandby() {
        return set.hasStandby();
    }

    /** A read ran on the primary because no standby had replayed its client's last commit in time. */
    public void freshReadOnPrimary() {
        set.readSentToPrimaryForFreshness();
    }

    /** A read waited {@code nanos} for a standby to replay its client's last commit, whatever came of it. */
    public void replayWaited(long nanos) {
        set.replayWaited(nanos);
    }

    /** A read waits for a standby to replay its client's last commit: the hosts are checked at once. */
    public void replayWait() {
        checkSoon();
    }

    /**
     * A read still waits for a standby's replay: the hosts are checked again, at most every
     * {@link #EARLY_CHECK_NANOS}. A standby replays a commit within milliseconds, so a check at once mostly comes
     * too early, and the next one of replica_check_period would come after the wait has sent the read to the
     * primary.
     */
    public void checkSoon() {
        if (System.nanoTime() - lastEarlyRound < EARLY_CHECK_NANOS || !soon.compareAndSet(false, true)) {
            return;
        }
        loop.execute(() -> {
            soon.set(false);
            lastEarlyRound = System.nanoTime();
            if (!closed.get() && !primary.isClosed()) {
                List<Replica<ServerConnection>> hosts = set.replicas();
                for (int i = 0; i < hosts.size(); i++) {
                    check(i, hosts.get(i), true);
                }
            }
        });
    }

    /** A standby's pool could not lend in time, or its login failed: out of the read set until a check finds it. */
    public void unreachable(Replica<ServerConnection> replica) {
        int i = set.replicas().indexOf(replica);
        if (roles[i] == Role.STANDBY) {
            log.warn("pool {}: standby {} did not serve a read, it leaves the read set", primary.name(),
                    replica.host());
        }
        roles[i] = Role.UNREACHABLE;
        set.unreachable(replica);
    }

    private void round() {
        if (primary.isClosed()) {
            close();
            return;
        }
        List<Replica<ServerConnection>> hosts = set.replicas();
        for (int i = 0; i < hosts.size(); i++) {
            check(i, hosts.get(i), false);
        }
    }

    /**
     * Asks one host, unless a check of it is in flight: an early check then leaves it be, a periodic one finds the
     * host unreachable once that check has had a whole replica_check_period.
     */
    private void check(int i, Replica<ServerConnection> replica, boolean early) {
        long now = System.nanoTime();
        if (!inFlight[i].compareAndSet(false, true)) {
            if (!early && now - checkStarted[i] >= settings.replicaCheckPeriod().toNanos()) {
                found(i, replica, Role.UNREACHABLE, 0, "no answer within replica_check_period");
            }
            return;
        }
        checkStarted[i] = now;
        replica.pool().acquireAsync(loop, (lease, failure) -> {
            if (failure != null) {
                inFlight[i].set(false);
                found(i, replica, Role.UNREACHABLE, 0, failure.getMessage());
                return;
            }
            ask(i, replica, lease);
        });
    }

    private void ask(int i, Replica<ServerConnection> replica, Lease<ServerConnection> lease) {
        ServerConnection server = lease.connection();
        List<String[]> rows = new ArrayList<>(2);
        server.request(PoolerPrelude.before(CHECK, server.parameters().majorVersion()), rows)
                .whenComplete((error, failure) -> {
                    if (failure != null) {
                        lease.discard(failure);
                    } else {
                        lease.release();
                    }
                    inFlight[i].set(false);
                    // the prelude's row first
                    if (failure != null || error != null || rows.size() != 2) {
                        found(i, replica, Role.UNREACHABLE, 0, failure != null ? failure.getMessage()
                                : error != null ? error.message() : "no row");
                        return;
                    }
                    String[] row = rows.get(1);
                    try {
                        boolean standby = "t".equals(row[0]);
                        if (!standby) {
                            primaryCluster = new ReadYourWritesToken(Long.parseLong(row[2]),
                                    Integer.parseInt(row[3]), 0);
                        }
                        found(i, replica, standby ? Role.STANDBY : Role.PRIMARY, Lsn.parse(row[1]), null);
                    } catch (IllegalArgumentException e) {
                        found(i, replica, Role.UNREACHABLE, 0, e.getMessage());
                    }
                });
    }

    private void found(int i, Replica<ServerConnection> replica, Role role, long lsn, String why) {
        Role was = roles[i];
        roles[i] = role;
        if (role == Role.STANDBY) {
            lagFound(replica, lsn);
            set.checked(replica, true, lsn);
        } else {
            if (role == Role.PRIMARY) {
                primaryLsn.set(lsn);
                synchronized (primaryWal) {
                    primaryWal.add(System.nanoTime(), lsn);
                }
            }
            set.lagged(replica, 0, false);
            set.checked(replica, false, 0);
        }
        if (was != role && (was == Role.STANDBY || role == Role.STANDBY)) {
            log.info("pool {}: {} is {}: {} the read set{}", primary.name(), replica.host(), role.configName(),
                    role == Role.STANDBY ? "it joins" : "it leaves", why != null ? " (" + why + ")" : "");
        }
    }

    /** Stops the checks and withdraws the MXBean and meters: its pool closed, or the proxy does. */
    public void close() {
        if (closed.compareAndSet(false, true)) {
            rounds.cancel(false);
            metrics.close();
        }
    }

    /** A standby's lag at this check: over replica_max_lag, it leaves the read set until it catches up. */
    private void lagFound(Replica<ServerConnection> replica, long replayLsn) {
        long lagNanos;
        synchronized (primaryWal) {
            lagNanos = primaryWal.lagNanos(replayLsn, System.nanoTime());
        }
        long max = settings.replicaMaxLag().toNanos();
        boolean over = max > 0 && lagNanos > max;
        if (over != replica.isLagging()) {
            log.info("pool {}: standby {} lags {} ms behind the primary, {} replica_max_lag: it {} the read set",
                    primary.name(), replica.host(), TimeUnit.NANOSECONDS.toMillis(lagNanos), over ? "over" : "within",
                    over ? "leaves" : "joins");
        }
        set.lagged(replica, lagNanos, over);
    }

    /** SHOW REPLICAS' figures of host {@code i}: role, replay position, bytes behind the primary, reads routed. */
    public Role role(int i) {
        return roles[i];
    }

    /** Host {@code i}'s replay position (a standby) or WAL position (the primary) at its last check; 0 unknown. */
    public long position(int i) {
        return switch (roles[i]) {
            case STANDBY -> set.replicas().get(i).replayLsn();
            case PRIMARY -> primaryLsn.get();
            default -> 0;
        };
    }

    /** How far behind the primary host {@code i}'s replay was at its last check, in seconds; 0 caught up or unknown. */
    public double lagSeconds(int i) {
        return roles[i] == Role.STANDBY ? set.replicas().get(i).lagNanos() / 1e9 : 0;
    }

    /** Whether host {@code i} is out of the read set for lagging past replica_max_lag. */
    public boolean lagging(int i) {
        return roles[i] == Role.STANDBY && set.replicas().get(i).isLagging();
    }

    public long reads(int i) {
        return set.replicas().get(i).readsRouted();
    }

    /** The bytes host {@code i} had still to replay at its last check, as far as the primary's last check tells; -1 unknown. */
    public long lagBytes(int i) {
        Replica<ServerConnection> r = set.replicas().get(i);
        long p = primaryLsn.get();
        if (roles[i] != Role.STANDBY || p == 0) {
            return -1;
        }
        return Lsn.reached(r.replayLsn(), p) ? 0 : p - r.replayLsn();
    }

    /**
     * When every host's last check answered and none is a primary, what each is (the detail of the error a client
     * that waited for the primary gets); null when a host is the primary or has not been checked yet.
     */
    public String noPrimary() {
        List<String> found = new ArrayList<>(roles.length);
        for (int i = 0; i < roles.length; i++) {
            if (roles[i] == Role.PRIMARY || roles[i] == Role.UNKNOWN) {
                return null;
            }
            found.add(set.replicas().get(i).host() + " is " + (roles[i] == Role.STANDBY ? "a standby" : "unreachable"));
        }
        return "no host of the list is a primary (read_routing = replicas): " + String.join(", ", found);
    }

    public long freshReadsOnPrimary() {
        return set.readsToPrimaryForFreshness();
    }

    public long replayWaits() {
        return set.replayWaits();
    }
}
