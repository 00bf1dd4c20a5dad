package io.pgmux.jdbc.logical;

import io.pgmux.core.config.PoolMode;
import io.pgmux.core.pool.ClientAdmission;
import io.pgmux.core.pool.PinReason;
import io.pgmux.jdbc.physical.PhysicalConnection;
import io.pgmux.jdbc.sql.Classification;
import io.pgmux.jdbc.sql.ReadIntent;
import io.pgmux.jdbc.sql.TransactionControl;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLWarning;
import java.sql.Statement;
import org.postgresql.core.TransactionState;

/**
 * What a logical connection makes of a statement's classification before and after it runs: the read-only
 * intent it declares, which decides where its transaction borrows under read routing and which the connection
 * keeps itself rather than pin; the pool mode's rules (no transaction blocks in statement mode, only rollback
 * after a lost transaction); the session state it leaves, which pins the connection to its server connection,
 * marks it for a reset at close (session mode) or for a check before the server goes back; and the warning for a
 * sequence value read that may be another client's.
 */
abstract class StatementRules extends SessionState {
    /** The pool routes read-only transactions to standbys: statements declaring read-only intent are looked for. */
    private final boolean routesReads;

    /** A client the pool admitted as {@code admission}. */
    StatementRules(ServerPool pool, ClientAdmission admission) {
        super(pool, admission);
        this.routesReads = pool.routesReads();
    }

    /**
     * As {@link #attach()}, for a statement classified as {@code c}: one that declares read-only intent in
     * auto-commit mode borrows as a read-only transaction does. BEGIN READ ONLY so routes as setReadOnly(true); a
     * SET of the session's default writes nothing, so its end does not make the next read wait for a standby.
     * With auto-commit off, SET TRANSACTION READ ONLY as a transaction's first statement routes that transaction.
     */
    PhysicalConnection attach(Classification c) throws SQLException {
        ReadIntent intent = c != null ? c.readIntent() : ReadIntent.NONE;
        return attach(physical == null && (autoCommit
                ? intent != ReadIntent.NONE && intent != ReadIntent.READ_ONLY_THIS_TRANSACTION
                : intent == ReadIntent.READ_ONLY_THIS_TRANSACTION));
    }

    /** What the SQL text does to the session and the transaction, from the pool's classifier. */
    Classification classify(String sql) {
        Classification c = pool.classifier().classify(sql);
        // only a statement that opens a transaction, sets session state or is a SET TRANSACTION can declare it
        if (routesReads && !c.isMultiStatement()
                && (c.startsTransaction() || c.pins() || ReadIntent.startsWithSet(sql))) {
            ReadIntent intent = ReadIntent.of(sql);
            if (intent != ReadIntent.NONE) {
                return c.withReadIntent(intent);
            }
        }
        return c;
    }

    /** As {@link #classify}, for a statement of a batch: its read-only intent, if any, stays on the server. */
    Classification classifyInBatch(String sql) {
        return pool.classifier().classify(sql);
    }

    /**
     * Whether this connection keeps a session-wide read-only intent itself instead of leaving it on the server
     * connection (which would pin): in auto-commit mode, outside a transaction block and a pin, not in session
     * mode, where the server connection is this connection's own anyway.
     */
    private boolean keepsReadIntent() {
        return mode != PoolMode.SESSION && autoCommit && pinReason() == null
                && (physical == null || physical.transactionState() == TransactionState.IDLE);
    }

    /**
     * After a statement that declared a session-wide read-only intent ran: the connection takes it over as
     * setReadOnly would, and the server connection's own copy is reset, so that it goes back to the pool as it came.
     */
    void readIntentDeclared(Classification c) throws SQLException {
        if (resetReadIntent(c)) {
            ReadIntent intent = c.readIntent();
            readOnly = intent == ReadIntent.READ_ONLY_SESSION
                    || (intent == ReadIntent.DEFAULT_SESSION && pool.sessionDefaults().readOnly);
            physical.readOnly(readOnly);
        }
    }

    /**
     * Resets the server connection's copy of a session-wide read-only intent that this connection keeps itself,
     * also after the statement failed (pgjdbc's executeQuery runs a SET, then finds no result): the server
     * connection must go back to the pool as it came. Whether there was one to reset.
     */
    boolean resetReadIntent(Classification c) throws SQLException {
        ReadIntent intent = c.readIntent();
        if (!intent.sessionWide() || physical == null
                || pinReason() != null || mode == PoolMode.SESSION) {
            return false;
        }
        try (Statement st = physical.connection().createStatement()) {
            st.execute("RESET default_transaction_read_only");
        } catch (SQLException e) {
            throw failed(e);
        }
        return true;
    }

    /** Checks a statement against the pool mode before it runs, and pins if it creates session state. */
    void beforeExecute(Classification c) throws SQLException {
        if (transactionLost) {
            TransactionControl control = c.transactionControl();
            if (control == TransactionControl.ROLLBACK || control == TransactionControl.ROLLBACK_AND_CHAIN) {
                // The server already rolled the transaction back when the connection died; the ROLLBACK
                // now runs on a fresh connection, where it only warns that no transaction is in progress.
                transactionLost = false;
            } else if (c.endsTransaction()) {
                transactionLost = false;
                throw new SQLNonTransientConnectionException("the server connection was lost during the "
                        + "transaction; it was rolled back", "08007");
            }
        }
        if (mode == PoolMode.STATEMENT && c.startsTransaction()) {
            throw transactionsNotAllowed();
        }
        ReadIntent intent = c.readIntent();
        if (intent.sessionWide() && !keepsReadIntent()) {
            // the server connection keeps the setting, as without read routing
            if (mode == PoolMode.SESSION) {
                sessionDirty = true;
            } else {
                pinTo(PinReason.SESSION_SET);
            }
        } else if (c.pins()) {
            if (mode == PoolMode.SESSION) {
                sessionDirty = true;
            } else {
                pinTo(c.pinReason());
            }
        } else if (c.checksAfter() && mode != PoolMode.SESSION) {
            checkBeforeRelease = true;
        }
    }

    /**
     * A warning for a statement that reads currval() or lastval() on a server connection it has not called
     * nextval() on since borrowing it: that value is whichever client's last nextval() ran there. Null when the
     * value is this connection's own (session mode, a pin, or a nextval() or INSERT earlier in the loan).
     */
    SQLWarning sequenceWarning(Classification c) {
        if (c.mayAdvanceSequence()) {
            sequenceAdvanced = true;
            return null;
        }
        if (!c.readsSequenceOnly() || mode == PoolMode.SESSION || (physical != null && sequenceAdvanced)
                || pinReason() != null) {
            return null;
        }
        pool.sequenceReadAlone();
        return new SQLWarning(LogicalConnection.SEQUENCE_READ_ALONE, "01000");
    }
}
