package io.pgmux.jdbc.logical;

import io.pgmux.jdbc.physical.PhysicalConnection;
import io.pgmux.core.pool.PinReason;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.postgresql.core.TransactionState;

/**
 * The after-the-fact check, as the proxy runs it: one query, after a transaction whose text hinted at session
 * state the classifier could not see, telling what the session really holds outside a transaction. Custom
 * settings cannot be listed by any query (PostgreSQL shows placeholders nowhere), so they are not among them.
 */
final class SessionStateCheck {
    /** One boolean per reason, in the order of {@link #REASONS}; advisory locks held now are session-level ones. */
    private static final String QUERY = "SELECT"
            + " EXISTS (SELECT FROM pg_catalog.pg_listening_channels()),"
            + " EXISTS (SELECT FROM pg_catalog.pg_locks WHERE locktype = 'advisory'"
            + " AND pid = pg_catalog.pg_backend_pid()),"
            + " EXISTS (SELECT FROM pg_catalog.pg_class WHERE relnamespace = pg_catalog.pg_my_temp_schema())"
            + " OR EXISTS (SELECT FROM pg_catalog.pg_proc WHERE pronamespace = pg_catalog.pg_my_temp_schema()),"
            + " EXISTS (SELECT FROM pg_catalog.pg_cursors WHERE is_holdable),"
            + " EXISTS (SELECT FROM pg_catalog.pg_prepared_statements WHERE from_sql)";
    private static final PinReason[] REASONS = {PinReason.LISTEN, PinReason.ADVISORY_LOCK, PinReason.TEMPORARY_OBJECT,
        PinReason.HOLD_CURSOR, PinReason.PREPARED_STATEMENT};

    private SessionStateCheck() {
    }

    /** What session state {@code p}'s server holds outside a transaction, or null for none. */
    static PinReason find(PhysicalConnection p) throws SQLException {
        try (Statement st = p.connection().createStatement(); ResultSet rs = st.executeQuery(QUERY)) {
            rs.next();
            for (int i = 0; i < REASONS.length; i++) {
                if (rs.getBoolean(i + 1)) {
                    return REASONS[i];
                }
            }
            return null;
        } finally {
            // With autocommit off pgjdbc began a transaction for the check; it must not outlive it.
            if (p.transactionState() != TransactionState.IDLE) {
                p.connection().rollback();
            }
        }
    }
}
