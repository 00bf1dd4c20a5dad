package io.pgmux.core.fleet;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fleet coordinated through the PostgreSQL server its pools reach: one row per member in
 * {@code pgmux_fleet.members}, written by one short transaction per heartbeat on a connection of the member's
 * own ({@link FleetSession}, which each face implements), on a thread of its own, never on a borrow. The
 * transaction takes an advisory lock of the fleet's (database, user), so that the members' rebalances run one
 * at a time; under it the members whose heartbeat is older than {@link #DEAD_AFTER} (by the server's clock: a
 * member's own clock plays no part) and whose coordination session has ended are deleted, which gives their
 * shares back. Heartbeats run on a thread of the member's own, or on one its owner shares among several members
 * ({@link #PostgresFleetCoordinator(String, int, String, String, FleetSessions, ScheduledExecutorService)}), one
 * member's after another. Design and costs: docs/fleet.md.
 */
public final class PostgresFleetCoordinator implements FleetCoordinator {
    private static final Logger log = LoggerFactory.getLogger(PostgresFleetCoordinator.class);

    /** How often a member tells its demand and takes its share. */
    public static final Duration HEARTBEAT = Duration.ofMillis(250);
    /** A member not heard from this long, its session ended, is gone, and its share returns to the others. */
    public static final Duration DEAD_AFTER = Duration.ofSeconds(3);
    /**
     * The longest a heartbeat may wait for the server, below {@link #DEAD_AFTER}: a member whose heartbeat hangs
     * falls back to its fixed share before the others count it dead.
     */
    private static final Duration STALL = Duration.ofSeconds(2);
    /**
     * A statement of the coordination that waits this long (for the fleet's lock, under heavy load) is ended by
     * the server, before {@link #STALL}: the session survives, and with it the member's lock, so that the others
     * never count a member dead whose heartbeat only waited.
     */
    private static final Duration STATEMENT_LIMIT = Duration.ofMillis(1500);
    /** What the coordination connection shows in pg_stat_activity. */
    public static final String APPLICATION_NAME = "pgmux fleet";

    private static final String EXISTS = "SELECT to_regclass('pgmux_fleet.members') IS NOT NULL";
    private static final String SCHEMA = "CREATE SCHEMA IF NOT EXISTS pgmux_fleet";
    private static final String TABLE = "CREATE TABLE IF NOT EXISTS pgmux_fleet.members ("
            + " fleet text NOT NULL, database text NOT NULL, username text NOT NULL, member text NOT NULL,"
            + " budget integer NOT NULL, demand integer NOT NULL, cap integer NOT NULL,"
            + " heartbeat timestamptz NOT NULL, PRIMARY KEY (fleet, database, username, member))";
    private static final String LOCK = "SELECT pg_advisory_xact_lock(hashtext('pgmux_fleet'), hashtext($1))";
    /**
     * Every member's coordination session holds this advisory lock of its id: a member not heard from whose
     * session still holds it is stalled (a GC pause, a stopped process), not dead, and its servers still run.
     */
    private static final String ALIVE = "SELECT pg_try_advisory_lock(hashtext('pgmux_fleet_member'), hashtext($1))";
    /**
     * A heartbeat later than the server's clock comes from a hand-edited row (or a clock set back): such a row
     * would otherwise hold its cap for as long as it stays in the future.
     */
    private static final String BURY = "DELETE FROM pgmux_fleet.members WHERE fleet = $1 AND database = $2"
            + " AND username = $3 AND (heartbeat < clock_timestamp() - make_interval(secs => $4::float8)"
            + " OR heartbeat > clock_timestamp() + make_interval(secs => $5::float8))"
            + " AND member <> $6"
            + " AND pg_try_advisory_xact_lock(hashtext('pgmux_fleet_member'), hashtext(member)) RETURNING member";
    private static final String BEAT = "INSERT INTO pgmux_fleet.members"
            + " (fleet, database, username, member, budget, demand, cap, heartbeat)"
            + " VALUES ($1, $2, $3, $4, $5::integer, $6::integer, $7::integer, clock_timestamp())"
            + " ON CONFLICT (fleet, database, username, member)"
            + " DO UPDATE SET budget = excluded.budget, demand = excluded.demand, heartbeat = excluded.heartbeat";
    private static final String MEMBERS = "SELECT member, budget, demand, cap FROM pgmux_fleet.members"
            + " WHERE fleet = $1 AND database = $2 AND username = $3 ORDER BY member";
    private static final String RECORD = "UPDATE pgmux_fleet.members SET cap = $1::integer"
            + " WHERE fleet = $2 AND database = $3 AND username = $4 AND member = $5";
    private static final String LEAVE = "DELETE FROM pgmux_fleet.members"
            + " WHERE fleet = $1 AND database = $2 AND username = $3 AND member = $4";

    private final String fleet;
    private final String database;
    private final String user;
    private final int budget;
    private final String memberId;
    private final FleetSessions sessions;
    private final ScheduledExecutorService beats;
    /** Whether {@link #beats} is this member's own, shut down when it leaves. */
    private final boolean ownsBeats;
    /** Done once joined (or failed to): leaving waits for it. */
    private volatile CompletableFuture<Void> joined = CompletableFuture.completedFuture(null);
    private volatile ScheduledFuture<?> beating;

    // Read and written by the join, then on the heartbeat thread only (leaving waits for the join).
    private FleetMember member;
    private FleetSession session;
    /**
     * Whether the session holds the member's lock: a new one cannot take it while the backend of the session it
     * replaces still runs, and takes it at a later heartbeat.
     */
    private boolean holdsAlive;
    private int localCap;
    /** The cap of this member's row as last committed. */
    private int recorded;
    /** Servers held at the end of the last heartbeat: a slot closed since is given back one heartbeat later. */
    private int heldLastBeat;
    private int membersSeen = 1;
    private final FleetFallback fallback = new FleetFallback(DEAD_AFTER.toNanos());
    /** The budget in force: the smallest any member gives. */
    private int fleetBudget;
    private boolean fallenBack;
    private boolean budgetsDifferLogged;

    /**
     * A member of {@code fleet} for the pool of ({@code database}, {@code user}), whose coordination connection
     * {@code sessions} opens.
     */
    public PostgresFleetCoordinator(String fleet, int budget, String database, String user, FleetSessions sessions) {
        this(fleet, budget, database, user, sessions, Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "pgmux-fleet-" + fleet);
            t.setDaemon(true);
            return t;
        }), true);
    }

    /**
     * As above, its heartbeats on {@code beats}, a single thread its owner shares among members and shuts down
     * once they left.
     */
    public PostgresFleetCoordinator(String fleet, int budget, String database, String user, FleetSessions sessions,
            ScheduledExecutorService beats) {
        this(fleet, budget, database, user, sessions, beats, false);
    }

    private PostgresFleetCoordinator(String fleet, int budget, String database, String user, FleetSessions sessions,
            ScheduledExecutorService beats, boolean ownsBeats) {
        if (budget < 1) {
            throw new IllegalArgumentException("fleetMaxServers=" + budget + ": must be at least 1");
        }
        this.fleet = fleet;
        this.budget = budget;
        this.fleetBudget = budget;
        this.database = database;
        this.user = user;
        this.memberId = UUID.randomUUID().toString();
        this.sessions = sessions;
        this.beats = beats;
        this.ownsBeats = ownsBeats;
    }

    /** This member's id, its row's {@code member}. */
    public String memberId() {
        return memberId;
    }

    @Override
    public void join(FleetMember m) {
        try {
            join(m, beats).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            throw new IllegalStateException("fleet " + fleet + ": joining failed", e.getCause());
        }
    }

    /**
     * Joins on {@code joining} without waiting: opening the coordination connection and the first heartbeat may
     * wait for the server, which should not hold up the other members sharing {@link #beats}. The heartbeats
     * follow on {@link #beats}. Called once.
     *
     * @return done at the first share (or the fallback share), failed if joining threw
     */
    public CompletableFuture<Void> join(FleetMember m, Executor joining) {
        CompletableFuture<Void> first = CompletableFuture.runAsync(() -> firstBeat(m), joining).thenRun(() -> {
            long period = HEARTBEAT.toNanos();
            beating = beats.scheduleWithFixedDelay(this::beat, period, period, TimeUnit.NANOSECONDS);
        });
        joined = first.exceptionally(e -> null);
        return first;
    }

    private void firstBeat(FleetMember m) {
        member = m;
        m.cap(0);
        try {
            session = open();
            // Serialized, since two members creating the schema at once would collide. A table an
            // operator made is used as it is: its members' role needs no CREATE then.
            session.query("BEGIN");
            session.query("SELECT pg_advisory_xact_lock(hashtext('pgmux_fleet'), 0)");
            if (!"t".equals(session.query(EXISTS).get(0)[0])) {
                session.query(SCHEMA);
                session.query(TABLE);
            }
            session.query("COMMIT");
        } catch (FleetQueryException e) {
            rollback();
            fallBack(e);
            return;
        }
        beat();
    }

    private FleetSession open() throws FleetQueryException {
        FleetSession s = sessions.open(APPLICATION_NAME, STALL);
        try {
            // The name lets an operator counting the pool's backends tell this one apart (set again here, since a
            // URL's ApplicationName wins over the login's); the server ends a transaction this member left open
            // (it stalled), so that its advisory lock never blocks the others.
            s.query("SET application_name = '" + APPLICATION_NAME + "'");
            s.query("SET idle_in_transaction_session_timeout = " + STALL.toMillis());
            s.query("SET statement_timeout = " + STATEMENT_LIMIT.toMillis());
            holdsAlive = "t".equals(s.query(ALIVE, memberId).get(0)[0]);
            return s;
        } catch (FleetQueryException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /** One heartbeat: tell the demand, bury the dead, take this member's share. */
    private void beat() {
        try {
            if (session == null) {
                session = open();
            } else if (!holdsAlive) {
                holdsAlive = "t".equals(session.query(ALIVE, memberId).get(0)[0]);
            }
            rebalance();
            if (fallenBack) {
                fallenBack = false;
                log.info("fleet {}: coordination through the server works again; share {} of {}", fleet, localCap,
                        budget);
            }
        } catch (FleetQueryException | RuntimeException e) {
            rollback();
            fallBack(e);
        }
    }

    private void rebalance() throws FleetQueryException {
        long started = System.nanoTime();
        // Two fleets whose keys collide only take turns; nothing else depends on the lock.
        String key = fleet + '/' + database + '/' + user;
        int demand = member.demand();
        session.query("BEGIN");
        session.query(LOCK, key);
        String bound = Double.toString(DEAD_AFTER.toMillis() / 1000.0);
        for (String[] gone : session.query(BURY, fleet, database, user, bound, bound, memberId)) {
            log.info("fleet {}: member {} was not heard from for {} ms; its share returns", fleet, gone[0],
                    DEAD_AFTER.toMillis());
        }
        // A row new (or deleted while this member stalled) says what the member holds, honestly.
        session.query(BEAT, fleet, database, user, memberId, Integer.toString(budget), Integer.toString(demand),
                Integer.toString(member.servers()));
        List<String[]> rows = session.query(MEMBERS, fleet, database, user);
        fleetBudget = budget;
        int[] demands = new int[rows.size()];
        int others = 0;
        int me = -1;
        for (int i = 0; i < rows.size(); i++) {
            String[] row = rows.get(i);
            fleetBudget = Math.min(fleetBudget, Integer.parseInt(row[1]));
            demands[i] = Integer.parseInt(row[2]);
            if (memberId.equals(row[0])) {
                me = i;
            } else {
                others += Math.max(0, Integer.parseInt(row[3]));
            }
        }
        if (fleetBudget != budget && !budgetsDifferLogged) {
            budgetsDifferLogged = true;
            log.warn("fleet {}: members give different budgets (fleetMaxServers {} here); the smallest, {}, holds",
                    fleet, budget, fleetBudget);
        }
        if (rows.size() > fleetBudget && rows.size() != membersSeen) {
            log.warn("fleet {}: {} members share a budget of {} server connections; {} of them get none, and their"
                    + " clients wait, until others leave or the budget grows", fleet, rows.size(), fleetBudget,
                    rows.size() - fleetBudget);
        }
        membersSeen = rows.size();
        int share = FleetShares.allocate(fleetBudget, demands)[me];
        // Never more than what the others leave: they lower theirs first, at their own heartbeats.
        int allowed = Math.max(0, Math.min(share, fleetBudget - others));
        if (allowed < localCap) {
            renew(allowed, started);
            localCap = allowed;
        }
        int held = member.servers();
        int record = Math.max(allowed, Math.max(held, Math.min(recorded, heldLastBeat)));
        session.query(RECORD, Integer.toString(record), fleet, database, user, memberId);
        session.query("COMMIT");
        recorded = record;
        heldLastBeat = held;
        localCap = allowed;
        fallback.committed(System.nanoTime(), membersSeen, allowed);
        renew(allowed, started);
        member.status(new FleetStatus(fleet, fleetBudget, allowed, membersSeen, false));
    }

    /**
     * Holds the member to {@code cap} until the others may count it dead, {@link #DEAD_AFTER} after the heartbeat
     * that began at {@code started}; past that, without another heartbeat, to its fallback share.
     */
    private void renew(int cap, long started) {
        long now = System.nanoTime();
        member.cap(cap, DEAD_AFTER.toNanos() - (now - started), fallback.fence(now, fleetBudget, cap));
    }

    /** Coordination failed: a fixed share of the budget until it works again, never an unbounded pool. */
    private void fallBack(Exception e) {
        long now = System.nanoTime();
        int members = fallback.members(now);
        int share = fallback.share(now, fleetBudget);
        if (!fallenBack) {
            fallenBack = true;
            log.warn("fleet {}: coordination through the server failed ({}); holding a fixed share of {} server"
                    + " connections (at most the share last granted, and fleetMaxServers {} / {} members seen"
                    + " recently) until it works again", fleet, e.getMessage(), share, fleetBudget, members);
        }
        member.cap(share);
        member.status(new FleetStatus(fleet, fleetBudget, share, members, true));
        localCap = share;
        recorded = 0;
        heldLastBeat = 0;
    }

    /** Ends a transaction a failure left open; a session that cannot is closed, and opened again at the next beat. */
    private void rollback() {
        if (session == null) {
            return;
        }
        try {
            session.query("ROLLBACK");
        } catch (FleetQueryException e) {
            session.close();
            session = null;
            holdsAlive = false;
        }
    }

    @Override
    public void close() {
        try {
            leave().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            log.debug("fleet {}: leaving failed", fleet, e.getCause());
        }
    }

    /**
     * Leaves without waiting, once the join is done: the heartbeats stop and the member's row is deleted on
     * {@link #beats}.
     *
     * @return done once left
     */
    public CompletableFuture<Void> leave() {
        CompletableFuture<Void> left = joined.thenRunAsync(this::deleteRow, beats);
        return ownsBeats ? left.whenComplete((v, e) -> beats.shutdownNow()) : left;
    }

    private void deleteRow() {
        ScheduledFuture<?> b = beating;
        if (b != null) {
            b.cancel(false);
        }
        if (session != null) {
            try {
                session.query(LEAVE, fleet, database, user, memberId);
            } catch (FleetQueryException e) {
                log.debug("fleet {}: leaving failed; the share returns after {} ms", fleet, DEAD_AFTER.toMillis(), e);
            }
            session.close();
            session = null;
        }
    }
}
