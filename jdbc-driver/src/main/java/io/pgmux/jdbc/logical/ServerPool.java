package io.pgmux.jdbc.logical;

import io.pgmux.core.config.PoolMode;
import io.pgmux.core.pool.ClientAdmission;
import io.pgmux.core.pool.LentServer;
import io.pgmux.core.stats.TrafficStats;
import io.pgmux.jdbc.physical.PhysicalConnection;
import io.pgmux.core.pool.PinReason;
import io.pgmux.jdbc.sql.SqlClassifier;
import java.sql.SQLException;

/**
 * What a logical connection needs from the pool it borrows server connections from, and no more: the
 * pool builds logical connections, so they see it only through this.
 */
public interface ServerPool {

    PoolMode poolMode();

    /** The state every new logical connection starts with. */
    SessionDefaults sessionDefaults();

    SqlClassifier classifier();

    /**
     * Borrows a server connection lent to {@code client} itself, which alone can give it back: no lease
     * object per borrow.
     */
    LentServer<PhysicalConnection> borrowFor(Object client) throws SQLException;

    /**
     * As {@link #borrowFor}, for a transaction declared read-only: from a standby when the pool routes reads to
     * them and one has replayed up to {@code minLsn} (0: any), else from the primary. With {@code mayWait}, a read
     * that finds no standby there yet waits up to replicaWaitTimeout for one.
     */
    LentServer<PhysicalConnection> borrowForRead(Object client, long minLsn, boolean mayWait) throws SQLException;

    /** Whether read-only transactions may run on standbys (readRouting=replicas). */
    boolean routesReads();

    /** Whether {@code server} was lent by a standby's pool rather than the primary's. */
    boolean onStandby(LentServer<PhysicalConnection> server);

    /** Whether read-only transactions must see their logical connection's own writes (readYourWrites). */
    boolean tracksWrites();

    /**
     * The primary's WAL insert position now, on a server connection borrowed for it: at or past every commit
     * that ended before the call.
     */
    long walInsertLsn() throws SQLException;

    /** Whether some standby has replayed up to {@code lsn} at its last check. */
    boolean standbyHasReplayed(long lsn);

    /**
     * The primary's cluster; asked of the primary the first time, when the answer is older than ten seconds (a
     * promotion changes the timeline), or when {@code fresh}.
     */
    ClusterIdentity clusterIdentity(boolean fresh) throws SQLException;

    /** What a new server session starts with; may borrow a connection the first time. */
    ServerDefaults serverDefaults() throws SQLException;

    /** A logical connection admitted as {@code admission} closed; called once per connection. */
    void clientLeft(ClientAdmission admission);

    /** A logical connection was pinned to its server connection. */
    void pinned(PinReason reason, int backendPid);

    /**
     * A statement read currval() or lastval() in a transaction that called no nextval() on its server
     * connection; the pool says so in its log, once.
     */
    void sequenceReadAlone();

    /**
     * serverResetQuery when serverResetQueryAlways asks for it after every use in transaction and statement
     * mode, else null.
     */
    String resetQueryAlways();

    /** A pinned logical connection gave its server connection back. */
    void unpinned();

    boolean isClosed();

    /** The pool's SHOW STATS totals, where logical connections count their statements and transactions. */
    TrafficStats traffic();

    /**
     * Whether statements and transactions are also timed: only a metrics tracker reads their times, and two
     * clock reads per statement are a measurable share of a statement's cost in the pool, so without one
     * they are only counted.
     */
    boolean timesStatements();
}
