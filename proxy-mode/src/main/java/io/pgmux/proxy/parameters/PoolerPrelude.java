package io.pgmux.proxy.parameters;

import io.pgmux.proxy.protocol.Sync;
import io.pgmux.proxy.protocol.UnnamedStatementRun;

/**
 * What each statement of the pooler's own on a client's session runs first, in the same transaction: the client's
 * timeouts off (a client's {@code statement_timeout = 1} would cancel the pooler's read of its settings, or the
 * next client's replay), its search_path back to the connection's own (a client's function ahead of pg_catalog's
 * must never run in the pooler's statements, auth_query included) and UTF-8 as client_encoding, so that what the
 * pooler sends and reads is in the encoding it speaks. Each is set with {@code is_local}, so the session keeps the
 * client's values once the transaction ends. The prelude returns one row: each overridden setting's session value,
 * then what set_config returned.
 */
public final class PoolerPrelude {
    /** The client's settings the prelude overrides, as PostgreSQL 15 has them. */
    private static final String[] OVERRIDDEN = {"statement_timeout", "lock_timeout",
            "idle_in_transaction_session_timeout", "search_path"};
    /** And PostgreSQL 17's transaction_timeout, which also counts the pooler's implicit transaction. */
    private static final String[] OVERRIDDEN_17 = {"statement_timeout", "lock_timeout",
            "idle_in_transaction_session_timeout", "search_path", "transaction_timeout"};
    private static final String SQL_15 = sql(OVERRIDDEN);
    private static final String SQL_17 = sql(OVERRIDDEN_17);

    private PoolerPrelude() {
    }

    /** The settings the prelude overrides on a server of {@code majorVersion}, in the order of its row. */
    static String[] overridden(int majorVersion) {
        return majorVersion >= 17 ? OVERRIDDEN_17 : OVERRIDDEN;
    }

    /**
     * {@code sql} after the prelude, for a server of {@code majorVersion}, with its {@code parameters} ($1…) bound
     * as text: an extended-protocol batch, so that
     * {@code sql} is parsed only once the prelude has run (a simple query's text is parsed whole before its first
     * statement runs, under the client's statement_timeout).
     */
    public static PreludedRequest before(String sql, int majorVersion, String... parameters) {
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

    private static String sql(String[] overridden) {
        StringBuilder sql = new StringBuilder("SELECT ");
        for (String name : overridden) {
            // a timeout off; search_path to what RESET gives, the connection's own
            sql.append("pg_catalog.current_setting('").append(name).append("'), pg_catalog.set_config('")
                    .append(name).append(name.equals("search_path") ? "', NULL, true), " : "', '0', true), ");
        }
        return sql.append("pg_catalog.set_config('client_encoding', 'UTF8', true)").toString();
    }
}
