package io.pgmux.proxy.parameters;

import io.pgmux.proxy.protocol.EncodableMessage;
import io.pgmux.proxy.protocol.Sync;
import io.pgmux.proxy.protocol.UnnamedStatementRun;

/**
 * What each statement of the pooler's own on a client's session runs first, in the same transaction: the client's
 * timeouts off (a client's {@code statement_timeout = 1} would cancel the pooler's read of its settings, or the
 * next client's replay) and UTF-8 as client_encoding, so that what the pooler sends and reads is in the encoding
 * it speaks. Each is set with {@code is_local}, so the session keeps the client's values once the transaction ends.
 * The prelude returns one row: each timeout's session value, then what set_config returned.
 */
public final class PoolerPrelude {
    /** The client's settings that may end a statement of the pooler's, as PostgreSQL 15 has them. */
    private static final String[] TIMEOUTS = {"statement_timeout", "lock_timeout",
            "idle_in_transaction_session_timeout"};
    /** PostgreSQL 17's transaction_timeout, which also counts the pooler's implicit transaction. */
    private static final String[] TIMEOUTS_17 = {"statement_timeout", "lock_timeout",
            "idle_in_transaction_session_timeout", "transaction_timeout"};
    private static final String SQL_15 = sql(TIMEOUTS);
    private static final String SQL_17 = sql(TIMEOUTS_17);

    private PoolerPrelude() {
    }

    /** The timeouts the prelude turns off on a server of {@code majorVersion}, in the order of its row. */
    static String[] timeouts(int majorVersion) {
        return majorVersion >= 17 ? TIMEOUTS_17 : TIMEOUTS;
    }

    /**
     * {@code sql} after the prelude, for a server of {@code majorVersion}, with its {@code parameters} ($1…) bound
     * as text: an extended-protocol batch, so that
     * {@code sql} is parsed only once the prelude has run (a simple query's text is parsed whole before its first
     * statement runs, under the client's statement_timeout).
     */
    public static EncodableMessage before(String sql, int majorVersion, String... parameters) {
        UnnamedStatementRun prelude = run(majorVersion);
        UnnamedStatementRun statement = new UnnamedStatementRun(sql, parameters);
        return out -> {
            prelude.encode(out);
            statement.encode(out);
            Sync.INSTANCE.encode(out);
        };
    }

    /** The prelude as the first statement of an extended-protocol batch. */
    static UnnamedStatementRun run(int majorVersion) {
        return new UnnamedStatementRun(majorVersion >= 17 ? SQL_17 : SQL_15);
    }

    private static String sql(String[] timeouts) {
        StringBuilder sql = new StringBuilder("SELECT ");
        for (String timeout : timeouts) {
            sql.append("pg_catalog.current_setting('").append(timeout).append("'), pg_catalog.set_config('")
                    .append(timeout).append("', '0', true), ");
        }
        return sql.append("pg_catalog.set_config('client_encoding', 'UTF8', true)").toString();
    }
}
