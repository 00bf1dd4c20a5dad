package io.pgmux.jdbc.logical;

import io.pgmux.core.pool.LentServer;
import io.pgmux.core.pool.Lsn;
import io.pgmux.core.pool.ReadYourWritesToken;
import io.pgmux.jdbc.physical.PhysicalConnection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Read-your-writes for one logical connection: where its last write is in the primary's WAL, so that its
 * read-only transactions borrow only from a standby that has replayed that far. A commit() that wrote learns its
 * position in the commit's own round trip; a transaction that ended otherwise (auto-commit, a COMMIT in SQL) may
 * have written, and the next read asks the primary for its position then, once for any number of such
 * transactions. Used under the logical connection's lock.
 */
final class OwnWrites {
    /**
     * Whether the transaction wrote (it has a transaction id), its commit, and the WAL position after it, in one
     * round trip: the position is read once the commit is in the WAL, at or past its commit record.
     */
    private static final String COMMIT = "SELECT pg_current_xact_id_if_assigned() IS NOT NULL; COMMIT;"
            + " SELECT pg_current_wal_insert_lsn()::text";

    /** The position a standby must have replayed for this connection's reads; 0 before any write. */
    private long mustSee;
    /** A transaction that may have written ended after {@link #mustSee} was learned. */
    private boolean unseen;
    /** The position the last read waited for: a standby behind it is not waited for twice. */
    private long waitedFor;
    /** The transaction that ends next is a {@link #commit} that learned its position already. */
    private boolean learned;

    /** A transaction ended on the primary; unless it was a {@link #commit}, it may have written. */
    void transactionEnded() {
        if (learned) {
            learned = false;
        } else {
            unseen = true;
        }
    }

    /** Commits the open transaction on {@code p}, the primary, learning its position if it wrote. */
    void commit(PhysicalConnection p) throws SQLException {
        boolean unseenBefore = unseen;
        try (Statement st = p.connection().createStatement()) {
            st.execute(COMMIT);
            boolean wrote;
            try (ResultSet rs = st.getResultSet()) {
                rs.next();
                wrote = rs.getBoolean(1);
            }
            st.getMoreResults();
            st.getMoreResults();
            try (ResultSet rs = st.getResultSet()) {
                rs.next();
                if (wrote || unseenBefore) {
                    mustSee = Lsn.later(mustSee, Lsn.parse(rs.getString(1)));
                }
            }
            unseen = false;
            learned = true;
        }
    }

    /**
     * The token of the position a standby must have replayed for this connection's reads (asked of the primary if
     * a transaction that may have written ended since), with the cluster it is a position of.
     */
    String token(ServerPool pool) throws SQLException {
        if (unseen) {
            mustSee = Lsn.later(mustSee, pool.walInsertLsn());
            unseen = false;
        }
        ClusterIdentity cluster = pool.clusterIdentity(false);
        return new ReadYourWritesToken(cluster.systemIdentifier(), cluster.timeline(), mustSee).text();
    }

    /**
     * This connection's reads must also see what {@code token} names. One of another timeline (a promotion
     * between) cannot be compared: the next read asks the primary's position, which is at or past it.
     *
     * @throws SQLException {@code 22023} for a token of another cluster, or naming a position the primary has not
     *                      reached; nothing changes then
     */
    void apply(ServerPool pool, ReadYourWritesToken token) throws SQLException {
        ClusterIdentity cluster = pool.clusterIdentity(false);
        if (cluster.systemIdentifier() != token.systemIdentifier()) {
            throw invalidToken("it is of another cluster (system identifier "
                    + Long.toUnsignedString(token.systemIdentifier()) + "; this pool's primary: "
                    + Long.toUnsignedString(cluster.systemIdentifier()) + ")");
        }
        if (cluster.timeline() != token.timeline()) {
            cluster = pool.clusterIdentity(true);
        }
        if (cluster.timeline() != token.timeline()) {
            unseen = true;
            return;
        }
        if (!pool.standbyHasReplayed(token.lsn()) && !Lsn.reached(pool.walInsertLsn(), token.lsn())) {
            throw invalidToken("it names WAL position " + Lsn.format(token.lsn())
                    + ", which the primary has not reached");
        }
        mustSee = Lsn.later(mustSee, token.lsn());
    }

    /** Borrows for a read-only transaction a server that has replayed this connection's writes. */
    LentServer<PhysicalConnection> borrowForRead(ServerPool pool, Object client) throws SQLException {
        if (unseen) {
            mustSee = Lsn.later(mustSee, pool.walInsertLsn());
            unseen = false;
        }
        boolean mayWait = mustSee != waitedFor;
        waitedFor = mustSee;
        return pool.borrowForRead(client, mustSee, mayWait);
    }

    /** What {@code applyReadYourWritesToken} throws for a token it cannot honour. */
    static SQLException invalidToken(String why) {
        return new SQLException("invalid readYourWrites token: " + why, "22023");
    }
}
