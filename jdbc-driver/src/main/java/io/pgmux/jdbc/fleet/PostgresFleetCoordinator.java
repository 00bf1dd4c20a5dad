package io.pgmux.jdbc.fleet;

import io.pgmux.core.fleet.FleetCoordinator;
import io.pgmux.core.fleet.FleetMember;
import io.pgmux.core.fleet.FleetShares;
import io.pgmux.core.fleet.FleetStatus;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fleet coordinated through the PostgreSQL server its pools reach: one row per member in
 * {@code pgmux_fleet.members}, written by one short transaction per heartbeat on a connection of the member's
 * own, on a thread of its own, never on a borrow. The transaction takes an advisory lock of the fleet's
 * (database, user), so that the members' rebalances run one at a time; under it the members whose heartbeat is
 * older than {@link #DEAD_AFTER} (by the server's clock: a member's own clock plays no part) are deleted, which
 * gives their shares back. Design and costs: docs/fleet.md.
 */
public final class PostgresFleetCoordinator implements FleetCoordinator {
    private static final Logger log = LoggerFactory.getLogger(PostgresFleetCoordinator.class);

    /** How often a member tells its demand and takes its share. */
    public static final Duration HEARTBEAT = Duration.ofMillis(250);
    /** A member not heard from this long is gone, and its share returns to the others. */
    public static final Duration DEAD_AFTER = Duration.ofSeconds(3);
    /**
     * The longest a heartbeat may wait for the server, below {@link #DEAD_AFTER}: a member whose heartbeat hangs
     * falls back to its fixed share before the others count it dead.
     */
    private static final Duration STALL = Duration.ofSeconds(2);
    /** What the coordination connection shows in pg_stat_activity. */
    public static final String APPLICATION_NAME = "pgmux fleet";

    private static final String EXISTS = "SELECT to_regclass('pgmux_fleet.members') IS NOT NULL";
    private static final String SCHEMA = "CREATE SCHEMA IF NOT EXISTS pgmux_fleet";
    private static final String TABLE = "CREATE TABLE IF NOT EXISTS pgmux_fleet.members ("
            + " fleet text NOT NULL, database text NOT NULL, username text NOT NULL, member text NOT NULL,"
            + " budget integer NOT NULL, demand integer NOT NULL, cap integer NOT NULL,"
            + " heartbeat timestamptz NOT NULL, PRIMARY KEY (fleet, database, username, member))";
    private static final String LOCK = "SELECT pg_advisory_xact_lock(hashtext('pgmux_fleet'), hashtext(?))";
    /**
     * Every member's coordination session holds this advisory lock of its id: a member not heard from whose
     * session still holds it is stalled (a GC pause, a stopped process), not dead, and its servers still run.
     */
    private static final String ALIVE = "SELECT pg_try_advisory_lock(hashtext('pgmux_fleet_member'), hashtext(?))";
    private static final String BURY = "DELETE FROM pgmux_fleet.members WHERE fleet = ? AND database = ?"
            + " AND username = ? AND heartbeat < clock_timestamp() - make_interval(secs => ?)"
            + " AND pg_try_advisory_xact_lock(hashtext('pgmux_fleet_member'), hashtext(member)) RETURNING member";
    private static final String BEAT = "INSERT INTO pgmux_fleet.members"
            + " (fleet, database, username, member, budget, demand, cap, heartbeat)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, clock_timestamp()) ON CONFLICT (fleet, database, username, member)"
            + " DO UPDATE SET budget = excluded.budget, demand = excluded.demand, heartbeat = excluded.heartbeat";
    private static final String MEMBERS = "SELECT member, budget, demand, cap FROM pgmux_fleet.members"
            + " WHERE fleet = ? AND database = ? AND username = ? ORDER BY member";
    private static final String RECORD = "UPDATE pgmux_fleet.members SET cap = ?"
            + " WHERE fleet = ? AND database = ? AND username = ? AND member = ?";
    private static final String LEAVE = "DELETE FROM pgmux_fleet.members"
            + " WHERE fleet = ? AND database = ? AND username = ? AND member = ?";

    private final String fleet;
    private final String database;
    private final String user;
    private final int budget;
    private final String memberId;
    private final Login login;
    private final ScheduledExecutorService beats;

    // Read and written on the heartbeat thread only (join and close wait for it).
    private FleetMember member;
    private Connection connection;
    private int localCap;
    /** The cap of this member's row as last committed. */
    private int recorded;
    /** Servers held at the end of the last heartbeat: a slot closed since is given back one heartbeat later. */
    private int heldLastBeat;
    private int membersSeen = 1;
    /** The budget in force: the smallest any member gives. */
    private int fleetBudget;
    private boolean fallenBack;
    private boolean budgetsDifferLogged;

    /** Opens the coordination connection, logged in as the pool's own connections are. */
    @FunctionalInterface
    public interface Login {
        /**
         * A new connection whose waits for the server end after {@code timeoutSeconds}, showing
         * {@code applicationName} from its login on.
         */
        Connection open(int timeoutSeconds, String applicationName) throws SQLException;
    }

    /**
     * A member of {@code fleet} for the pool of ({@code database}, {@code user}), whose coordination connection
     * {@code login} opens.
     */
    public PostgresFleetCoordinator(String fleet, int budget, String database, String user, Login login) {
        if (budget < 1) {
            throw new IllegalArgumentException("fleetMaxServers=" + budget + ": must be at least 1");
        }
        this.fleet = fleet;
        this.budget = budget;
        this.database = database;
        this.user = user;
        this.memberId = UUID.randomUUID().toString();
        this.login = login;
        this.fleetBudget = budget;
        this.beats = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "pgmux-fleet-" + fleet);
            t.setDaemon(true);
            return t;
        });
    }

    /** This member's id, its row's {@code member}. */
    public String memberId() {
        return memberId;
    }

    @Override
    public void join(FleetMember m) {
        try {
            beats.submit(() -> {
                member = m;
                m.cap(0);
                try {
                    connection = open();
                    try (Statement st = connection.createStatement()) {
                        // Serialized, since two members creating the schema at once would collide. A table an
                        // operator made is used as it is: its members' role needs no CREATE then.
                        st.execute("SELECT pg_advisory_xact_lock(hashtext('pgmux_fleet'), 0)");
                        try (ResultSet rs = st.executeQuery(EXISTS)) {
                            rs.next();
                            if (!rs.getBoolean(1)) {
                                st.execute(SCHEMA);
                                st.execute(TABLE);
                            }
                        }
                    }
                    connection.commit();
                } catch (SQLException e) {
                    fallBack(e);
                    return;
                }
                beat();
            }).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            throw new IllegalStateException("fleet " + fleet + ": joining failed", e.getCause());
        }
        long period = HEARTBEAT.toNanos();
        beats.scheduleWithFixedDelay(this::beat, period, period, TimeUnit.NANOSECONDS);
    }

    private Connection open() throws SQLException {
        Connection c = login.open((int) STALL.toSeconds(), APPLICATION_NAME);
        try {
            // The name lets an operator counting the pool's backends tell this one apart (set again here, since a
            // URL's ApplicationName wins over the login's); the server ends a transaction this member left open
            // (it stalled), so that its advisory lock never blocks the others.
            c.setNetworkTimeout(Runnable::run, (int) STALL.toMillis());
            try (Statement st = c.createStatement()) {
                st.execute("SET application_name = '" + APPLICATION_NAME + "'");
                st.execute("SET idle_in_transaction_session_timeout = " + STALL.toMillis());
            }
            try (PreparedStatement alive = c.prepareStatement(ALIVE)) {
                alive.setString(1, memberId);
                alive.execute();
            }
            c.setAutoCommit(false);
            return c;
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /** One heartbeat: tell the demand, bury the dead, take this member's share. */
    private void beat() {
        try {
            if (connection == null || connection.isClosed()) {
                connection = open();
            }
            rebalance();
            if (fallenBack) {
                fallenBack = false;
                log.info("fleet {}: coordination through the server works again; share {} of {}", fleet, localCap,
                        budget);
            }
        } catch (SQLException | RuntimeException e) {
            rollback();
            fallBack(e);
        }
    }

    private void rebalance() throws SQLException {
        long started = System.nanoTime();
        // Two fleets whose keys collide only take turns; nothing else depends on the lock.
        String key = fleet + '/' + database + '/' + user;
        int demand = member.demand();
        try (PreparedStatement lock = connection.prepareStatement(LOCK)) {
            lock.setString(1, key);
            lock.execute();
        }
        try (PreparedStatement bury = connection.prepareStatement(BURY)) {
            bind(bury);
            bury.setDouble(4, DEAD_AFTER.toMillis() / 1000.0);
            try (ResultSet gone = bury.executeQuery()) {
                while (gone.next()) {
                    log.info("fleet {}: member {} was not heard from for {} ms; its share returns", fleet,
                            gone.getString(1), DEAD_AFTER.toMillis());
                }
            }
        }
        try (PreparedStatement beat = connection.prepareStatement(BEAT)) {
            bind(beat);
            beat.setString(4, memberId);
            beat.setInt(5, budget);
            beat.setInt(6, demand);
            // A row new (or deleted while this member stalled) says what the member holds, honestly.
            beat.setInt(7, member.servers());
            beat.executeUpdate();
        }
        List<String> ids = new ArrayList<>();
        List<int[]> rows = new ArrayList<>();
        try (PreparedStatement members = connection.prepareStatement(MEMBERS)) {
            bind(members);
            try (ResultSet rs = members.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getString(1));
                    rows.add(new int[] {rs.getInt(2), rs.getInt(3), rs.getInt(4)});
                }
            }
        }
        fleetBudget = budget;
        int[] demands = new int[rows.size()];
        int others = 0;
        int me = ids.indexOf(memberId);
        for (int i = 0; i < rows.size(); i++) {
            int[] row = rows.get(i);
            fleetBudget = Math.min(fleetBudget, row[0]);
            demands[i] = row[1];
            if (i != me) {
                others += Math.max(0, row[2]);
            }
        }
        if (fleetBudget != budget && !budgetsDifferLogged) {
            budgetsDifferLogged = true;
            log.warn("fleet {}: members give different budgets (fleetMaxServers {} here); the smallest, {}, holds",
                    fleet, budget, fleetBudget);
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
        try (PreparedStatement update = connection.prepareStatement(RECORD)) {
            update.setInt(1, record);
            bind(update, 2);
            update.setString(5, memberId);
            update.executeUpdate();
        }
        connection.commit();
        recorded = record;
        heldLastBeat = held;
        localCap = allowed;
        renew(allowed, started);
        member.status(new FleetStatus(fleet, fleetBudget, allowed, membersSeen, false));
    }

    /**
     * Holds the member to {@code cap} until the others may count it dead, {@link #DEAD_AFTER} after the heartbeat
     * that began at {@code started}; past that, without another heartbeat, to its fallback share.
     */
    private void renew(int cap, long started) {
        member.cap(cap, DEAD_AFTER.toNanos() - (System.nanoTime() - started), fallbackShare());
    }

    private int fallbackShare() {
        return Math.max(1, budget / Math.max(1, membersSeen));
    }

    private void bind(PreparedStatement st) throws SQLException {
        bind(st, 1);
    }

    private void bind(PreparedStatement st, int first) throws SQLException {
        st.setString(first, fleet);
        st.setString(first + 1, database);
        st.setString(first + 2, user);
    }

    /** Coordination failed: a fixed share of the budget until it works again, never an unbounded pool. */
    private void fallBack(Exception e) {
        int share = fallbackShare();
        if (!fallenBack) {
            fallenBack = true;
            log.warn("fleet {}: coordination through the server failed ({}); holding a fixed share of {} server"
                    + " connections (fleetMaxServers {} / {} members last seen) until it works again", fleet,
                    e.getMessage(), share, budget, membersSeen);
        }
        member.cap(share);
        member.status(new FleetStatus(fleet, budget, share, membersSeen, true));
        localCap = share;
        recorded = 0;
        heldLastBeat = 0;
    }

    private void rollback() {
        try {
            if (connection != null && !connection.isClosed()) {
                connection.rollback();
            }
        } catch (SQLException e) {
            closeConnection();
        }
    }

    private void closeConnection() {
        try {
            if (connection != null) {
                connection.close();
            }
        } catch (SQLException e) {
            log.debug("fleet {}: closing the coordination connection failed", fleet, e);
        }
        connection = null;
    }

    @Override
    public void close() {
        try {
            beats.submit(() -> {
                if (connection != null) {
                    try (PreparedStatement leave = connection.prepareStatement(LEAVE)) {
                        bind(leave);
                        leave.setString(4, memberId);
                        leave.executeUpdate();
                        connection.commit();
                    } catch (SQLException e) {
                        log.debug("fleet {}: leaving failed; the share returns after {} ms", fleet,
                                DEAD_AFTER.toMillis(), e);
                    }
                }
                closeConnection();
            }).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            log.debug("fleet {}: leaving failed", fleet, e.getCause());
        } finally {
            beats.shutdownNow();
        }
    }
}
