package io.pgmux.proxy.client;

import io.pgmux.core.pool.Lsn;
import io.pgmux.core.pool.Pool;
import io.pgmux.core.pool.ReadYourWritesToken;
import io.pgmux.core.pool.Replica;
import io.pgmux.proxy.parameters.ClientParameters;
import io.pgmux.proxy.parameters.PoolerPrelude;
import io.pgmux.proxy.protocol.EncodableMessage;
import io.pgmux.proxy.protocol.FrontendMessage;
import io.pgmux.proxy.protocol.ParameterStatus;
import io.pgmux.proxy.replicas.ReadIntent;
import io.pgmux.proxy.replicas.ReplicaRoutes;
import io.pgmux.proxy.server.ServerConnection;
import java.net.SocketAddress;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client's read routing (read_routing = replicas, transaction mode): which pool each of its transactions borrows
 * from, and with read_your_writes the WAL position its reads must see, the one after its last commit that may have
 * written. A transaction declared read-only before it starts (see {@link ReadIntent}) goes to the next standby in
 * turn that has replayed that position; with none, it waits up to replica_wait_timeout for one, then runs on the
 * primary, which also serves everything else. The position travels as a read-your-writes token: the client gets
 * it as the ParameterStatus {@value #TOKEN} after each position read, and one it sets as that setting joins its own.
 * On the client's event loop.
 */
final class ClientReads {
    /** The setting and ParameterStatus that carry a read-your-writes token. */
    static final String TOKEN = "pgmux.read_your_writes_token";
    private static final Logger log = LoggerFactory.getLogger(ClientReads.class);
    /** How often a read waiting for a standby's replay looks again at what the checks found. */
    static final long REPLAY_POLL_NANOS = 5_000_000;
    /** The position after a commit the pooler could not read: no standby may serve this client's reads. */
    private static final long UNKNOWN = -1;
    private static final String WAL_POSITION = "SELECT pg_catalog.pg_current_wal_insert_lsn()::text";

    private final ReplicaRoutes routes;
    private final ClientParameters parameters;
    private final boolean readYourWrites;
    private final long waitNanos;
    private final SocketAddress client;
    /** The last token the client set, once applied; null for none. */
    private String tokenApplied;
    /** The WAL position the client's next read must see; 0 for none. */
    private long mustSee;
    /** When the read waiting for a standby's replay gives up on it; 0 while none waits. */
    private long waitDeadline;
    /** The standby the current transaction borrowed from; null on the primary. */
    private Replica<ServerConnection> replica;
    /** The current transaction began READ ONLY: it cannot have written, wherever it ran. */
    private boolean declaredReadOnly;

    ClientReads(ReplicaRoutes routes, ClientParameters parameters, SocketAddress client) {
        this.routes = routes;
        this.parameters = parameters;
        this.client = client;
        this.readYourWrites = routes.settings().readYourWrites();
        this.waitNanos = routes.settings().replicaWaitTimeout().toNanos();
    }

    /**
     * How long a read waits for a server of the standby it was routed to before the primary serves it instead:
     * replica_check_period, the time a check takes to find a standby that stopped.
     */
    long standbyWaitNanos() {
        return routes.settings().replicaCheckPeriod().toNanos();
    }

    /** Whether read_your_writes asks for the WAL position after each transaction that may have written. */
    boolean watchesWrites() {
        return readYourWrites;
    }

    /**
     * The pool the transaction that starts with the {@code pending} messages borrows from, or null when it is to wait
     * for a standby's replay and ask again in {@link #REPLAY_POLL_NANOS}.
     */
    Pool<ServerConnection> route(Iterable<FrontendMessage> pending, long now) {
        replica = null;
        Boolean declared = ReadIntent.declared(pending);
        declaredReadOnly = declared == Boolean.TRUE;
        boolean readOnly = declaredReadOnly
                || declared == null && ReadIntent.on(parameters.unreported("default_transaction_read_only"));
        if (!readOnly) {
            waitDeadline = 0;
            return routes.primary();
        }
        if (readYourWrites) {
            applyToken();
        }
        long minLsn = readYourWrites ? mustSee : 0;
        Replica<ServerConnection> r = minLsn == UNKNOWN ? null : routes.pick(minLsn);
        if (r != null) {
            replayWaitEnds(now);
            replica = r;
            return r.pool();
        }
        if (minLsn != 0 && routes.hasStandby()) {
            if (waitDeadline == 0 && waitNanos > 0 && minLsn != UNKNOWN) {
                waitDeadline = now + waitNanos;
                routes.replayWait();
                return null;
            }
            if (waitDeadline != 0 && now - waitDeadline < 0) {
                routes.checkSoon();
                return null;
            }
            routes.freshReadOnPrimary();
        }
        replayWaitEnds(now);
        return routes.primary();
    }

    /**
     * A token the client set that it has not applied yet joins its own position. One that cannot be read, or names
     * another cluster or timeline, cannot say which standby is fresh enough: the client's reads go to the primary until
     * its next write tells its position again.
     */
    private void applyToken() {
        String text = parameters.unreported(TOKEN);
        if (text == null || text.isEmpty() || text.equals(tokenApplied)) {
            return;
        }
        tokenApplied = text;
        ReadYourWritesToken token;
        try {
            token = ReadYourWritesToken.parse(text);
        } catch (IllegalArgumentException e) {
            ignoreToken(e.getMessage());
            return;
        }
        ReadYourWritesToken primary = routes.token(0);
        if (primary == null || primary.systemIdentifier() != token.systemIdentifier()) {
            ignoreToken(primary == null ? "the primary has not been checked yet" : "it is of another cluster");
        } else if (primary.timeline() != token.timeline()) {
            mustSee = UNKNOWN;
        } else if (mustSee != UNKNOWN) {
            mustSee = Lsn.later(mustSee, token.lsn());
        }
    }

    private void ignoreToken(String why) {
        mustSee = UNKNOWN;
        log.warn("client {}: {} ignored ({}): its reads run on the primary until its next write", client, TOKEN, why);
    }

    /** The token naming the position the client's reads must see, for the client to hand on; null if unknown. */
    private String token() {
        if (mustSee == UNKNOWN || mustSee == 0) {
            return null;
        }
        ReadYourWritesToken token = routes.token(mustSee);
        return token == null ? null : token.text();
    }

    /** Whether the wait for replay under way has lasted {@code limitNanos} (above 0) at {@code now}. */
    boolean replayWaitOutlasts(long limitNanos, long now) {
        return waitDeadline != 0 && limitNanos > 0 && now - (waitDeadline - waitNanos) >= limitNanos;
    }

    /** A wait for replay, if one was under way, is over at {@code now}: its time is counted. */
    void replayWaitEnds(long now) {
        if (waitDeadline != 0) {
            routes.replayWaited(Math.max(0, now - (waitDeadline - waitNanos)));
            waitDeadline = 0;
        }
    }

    /** The standby the current transaction borrowed from could not lend: it runs on the primary instead. */
    Pool<ServerConnection> standbyFailed() {
        if (replica != null) {
            routes.unreachable(replica);
            replica = null;
        }
        return routes.primary();
    }

    /** Whether the transaction that just ended may have written on the primary: its WAL position is then read. */
    boolean wantsPosition(boolean mayHaveWritten) {
        return readYourWrites && mayHaveWritten && replica == null && !declaredReadOnly;
    }

    /** The read of the WAL position after the client's commit, run on the server lent to this client. */
    EncodableMessage positionQuery(int majorVersion) {
        return PoolerPrelude.before(WAL_POSITION, majorVersion);
    }

    /**
     * What the read of the WAL position after the client's commit returned ({@code rows} after the pooler's prelude
     * row), or null when it failed: then no standby serves the client's reads until a position is read again.
     *
     * @return the ParameterStatus that tells the client its token; null when the position is unknown
     */
    ParameterStatus positionRead(List<String[]> rows) {
        long lsn = UNKNOWN;
        if (rows != null && rows.size() == 2 && rows.get(1).length == 1) {
            try {
                lsn = Lsn.parse(rows.get(1)[0]);
            } catch (IllegalArgumentException e) {
                lsn = UNKNOWN;
            }
        }
        mustSee = lsn == UNKNOWN || mustSee == UNKNOWN ? lsn : Lsn.later(mustSee, lsn);
        String token = token();
        return token == null ? null : new ParameterStatus(TOKEN, token);
    }
}
