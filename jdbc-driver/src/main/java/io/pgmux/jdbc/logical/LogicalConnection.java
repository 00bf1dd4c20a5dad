package io.pgmux.jdbc.logical;

import io.pgmux.core.config.PoolMode;
import io.pgmux.core.pool.ClientAdmission;
import io.pgmux.core.pool.PinReason;
import io.pgmux.core.pool.ReadYourWritesToken;
import io.pgmux.jdbc.PgMuxConnection;
import io.pgmux.jdbc.physical.PhysicalConnection;
import io.pgmux.jdbc.sql.Classification;
import io.pgmux.jdbc.sql.ReadIntent;
import io.pgmux.jdbc.sql.TransactionControl;
import java.lang.reflect.Proxy;
import java.sql.Array;
import java.sql.Blob;
import java.sql.CallableStatement;
import java.sql.Clob;
import java.sql.DatabaseMetaData;
import java.sql.NClob;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLWarning;
import java.sql.SQLXML;
import java.sql.Savepoint;
import java.sql.Statement;
import java.sql.Struct;
import java.util.concurrent.Executor;
import org.postgresql.PGConnection;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.TransactionState;

/**
 * What {@code getConnection()} returns. It owns no socket: it borrows a pgjdbc connection when work starts
 * and gives it back when the pool mode allows — at close (session), when the server reports the
 * transaction idle and no result set of it is still open (transaction), or after each statement
 * (statement). Its JDBC session state is kept here and applied to whichever connection it gets.
 * Execution, close() and calls from other threads are serialised by the lock the connection itself is
 * ({@link ConnectionLock}).
 *
 * <p>This class is its JDBC API; each role beneath it is a class of its own in the chain it extends, one
 * object in all: {@link Borrower} borrows and gives back its server connections, {@link SessionState} keeps
 * and replays its session state.
 */
public final class LogicalConnection extends SessionState implements PgMuxConnection {
    /** What the statement's SQLWarning and the pool's log line say of a currval() or lastval() read alone. */
    public static final String SEQUENCE_READ_ALONE = "currval()/lastval() in a transaction that called no nextval():"
            + " under transaction pooling the value may be another client's; use INSERT ... RETURNING or"
            + " getGeneratedKeys()";

    /** The pool routes read-only transactions to standbys: statements declaring read-only intent are looked for. */
    private final boolean routesReads;

    /** A client the pool admitted as {@code admission}. */
    public LogicalConnection(ServerPool pool, ClientAdmission admission) throws SQLException {
        super(pool, admission);
        this.routesReads = pool.routesReads();
        if (mode == PoolMode.STATEMENT && !autoCommit) {
            pool.clientLeft(admission);
            throw transactionsNotAllowed();
        }
        if (mode == PoolMode.SESSION) {
            try {
                attach();
            } catch (SQLException e) {
                pool.clientLeft(admission);
                throw e;
            }
        }
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
        return new SQLWarning(SEQUENCE_READ_ALONE, "01000");
    }
    // ---------------------------------------------------------------- statements

    @Override
    public Statement createStatement() throws SQLException {
        return createStatement(ResultSetType.DEFAULT);
    }

    @Override
    public Statement createStatement(int resultSetType, int resultSetConcurrency) throws SQLException {
        return createStatement(new ResultSetType(resultSetType, resultSetConcurrency, -1));
    }

    @Override
    public Statement createStatement(int resultSetType, int resultSetConcurrency, int resultSetHoldability)
            throws SQLException {
        return createStatement(new ResultSetType(resultSetType, resultSetConcurrency, resultSetHoldability));
    }

    private Statement createStatement(ResultSetType type) throws SQLException {
        checkOpen();
        LogicalStatement s = new LogicalStatement(this, type);
        register(s);
        return s;
    }

    @Override
    public PreparedStatement prepareStatement(String sql) throws SQLException {
        return prepare(sql, ResultSetType.DEFAULT, GeneratedKeys.NONE);
    }

    @Override
    public PreparedStatement prepareStatement(String sql, int resultSetType, int resultSetConcurrency)
            throws SQLException {
        return prepare(sql, new ResultSetType(resultSetType, resultSetConcurrency, -1), GeneratedKeys.NONE);
    }

    @Override
    public PreparedStatement prepareStatement(String sql, int resultSetType, int resultSetConcurrency,
                                              int resultSetHoldability) throws SQLException {
        return prepare(sql, new ResultSetType(resultSetType, resultSetConcurrency, resultSetHoldability),
                GeneratedKeys.NONE);
    }

    @Override
    public PreparedStatement prepareStatement(String sql, int autoGeneratedKeys) throws SQLException {
        return prepare(sql, ResultSetType.DEFAULT, GeneratedKeys.of(autoGeneratedKeys));
    }

    @Override
    public PreparedStatement prepareStatement(String sql, int[] columnIndexes) throws SQLException {
        checkOpen();
        // pgjdbc refuses keys by index only here, at prepare; an empty array asks for all of them
        if (columnIndexes != null && columnIndexes.length > 0) {
            throw new SQLFeatureNotSupportedException("Returning autogenerated keys by column index is not supported.",
                    "0A000");
        }
        return prepare(sql, ResultSetType.DEFAULT, GeneratedKeys.of(columnIndexes));
    }

    @Override
    public PreparedStatement prepareStatement(String sql, String[] columnNames) throws SQLException {
        return prepare(sql, ResultSetType.DEFAULT, GeneratedKeys.of(columnNames));
    }

    private PreparedStatement prepare(String sql, ResultSetType type, GeneratedKeys keys) throws SQLException {
        checkOpen();
        if (sql == null) {
            throw new SQLException("SQL must not be null", "42601");
        }
        LogicalPreparedStatement s = new LogicalPreparedStatement(this, type, sql, keys);
        register(s);
        return s;
    }

    @Override
    public CallableStatement prepareCall(String sql) throws SQLException {
        return prepareCall(sql, ResultSetType.DEFAULT);
    }

    @Override
    public CallableStatement prepareCall(String sql, int resultSetType, int resultSetConcurrency)
            throws SQLException {
        return prepareCall(sql, new ResultSetType(resultSetType, resultSetConcurrency, -1));
    }

    @Override
    public CallableStatement prepareCall(String sql, int resultSetType, int resultSetConcurrency,
                                         int resultSetHoldability) throws SQLException {
        return prepareCall(sql, new ResultSetType(resultSetType, resultSetConcurrency, resultSetHoldability));
    }

    private CallableStatement prepareCall(String sql, ResultSetType type) throws SQLException {
        checkOpen();
        LogicalCallableStatement s = new LogicalCallableStatement(this, type, sql);
        register(s);
        return s;
    }

    @Override
    public String nativeSQL(String sql) throws SQLException {
        checkOpen();
        return withServer(p -> p.connection().nativeSQL(sql));
    }

    // ---------------------------------------------------------------- transactions

    @Override
    public void setAutoCommit(boolean value) throws SQLException {
        checkOpen();
        if (value == autoCommit) {
            return;
        }
        if (!value && mode == PoolMode.STATEMENT) {
            throw transactionsNotAllowed();
        }
        lock();
        try {
            autoCommit = value;
            if (physical != null) {
                long start = statementStart();
                try {
                    // JDBC: switching autocommit on commits the transaction in progress.
                    physical.autoCommit(value);
                } catch (SQLException e) {
                    throw failed(e);
                }
                if (loan.inTransaction) {
                    statementDone(start);
                }
                releaseIfIdle();
            }
        } finally {
            unlock();
        }
    }

    @Override
    public boolean getAutoCommit() throws SQLException {
        checkOpen();
        return autoCommit;
    }

    @Override
    public void commit() throws SQLException {
        checkOpen();
        if (autoCommit) {
            throw new SQLException("Cannot commit when autoCommit is enabled.", "25P01");
        }
        endTransaction(true);
    }

    @Override
    public void rollback() throws SQLException {
        checkOpen();
        if (autoCommit) {
            throw new SQLException("Cannot rollback when autoCommit is enabled.", "25P01");
        }
        endTransaction(false);
    }

    private void endTransaction(boolean commit) throws SQLException {
        lock();
        try {
            if (transactionLost) {
                transactionLost = false;
                if (commit) {
                    throw new SQLNonTransientConnectionException("the server connection was lost during the "
                            + "transaction; it was rolled back", "08007");
                }
                return;
            }
            if (physical == null) {
                return;
            }
            long start = statementStart();
            try {
                if (commit && loan.writes && physical.transactionState() == TransactionState.OPEN) {
                    ownWrites.commit(physical);
                } else if (commit) {
                    physical.connection().commit();
                } else {
                    physical.connection().rollback();
                }
            } catch (SQLException e) {
                if (loan.onStandby && isConnectionLoss(e)) {
                    // a standby's transaction wrote nothing: it ended with its server as a commit would end it
                    dropServer(e);
                    return;
                }
                throw failed(e);
            } finally {
                statementDone(start);
                releaseIfIdle();
            }
        } finally {
            unlock();
        }
    }

    @Override
    public Savepoint setSavepoint() throws SQLException {
        return savepoint(null);
    }

    @Override
    public Savepoint setSavepoint(String name) throws SQLException {
        return savepoint(name);
    }

    private Savepoint savepoint(String name) throws SQLException {
        checkOpen();
        if (autoCommit) {
            throw new SQLException("Cannot establish a savepoint in auto-commit mode.", "25P01");
        }
        lock();
        try {
            PhysicalConnection p = attach();
            try {
                return name == null ? p.connection().setSavepoint() : p.connection().setSavepoint(name);
            } catch (SQLException e) {
                throw failed(e);
            }
        } finally {
            unlock();
        }
    }

    @Override
    public void rollback(Savepoint savepoint) throws SQLException {
        onSavepoint(savepoint, p -> {
            p.connection().rollback(savepoint);
            return null;
        });
    }

    @Override
    public void releaseSavepoint(Savepoint savepoint) throws SQLException {
        onSavepoint(savepoint, p -> {
            p.connection().releaseSavepoint(savepoint);
            return null;
        });
    }

    /** A savepoint lives in the transaction of the server connection held; without one it cannot exist. */
    private void onSavepoint(Savepoint savepoint, ServerCall<Void> call) throws SQLException {
        checkOpen();
        lock();
        try {
            if (physical == null) {
                throw new SQLException("savepoint " + savepoint + " does not exist: no transaction in progress",
                        "3B001");
            }
            try {
                call.run(physical);
            } catch (SQLException e) {
                throw failed(e);
            }
        } finally {
            unlock();
        }
    }

    // ---------------------------------------------------------------- read-your-writes tokens

    @Override
    public String readYourWritesToken() throws SQLException {
        checkOpen();
        if (ownWrites == null) {
            throw new SQLFeatureNotSupportedException("a readYourWrites token needs readRouting=replicas and"
                    + " readYourWrites=true", "0A000");
        }
        lock();
        try {
            return ownWrites.token(pool);
        } finally {
            unlock();
        }
    }

    @Override
    public void applyReadYourWritesToken(String token) throws SQLException {
        checkOpen();
        ReadYourWritesToken t;
        try {
            t = ReadYourWritesToken.parse(token);
        } catch (IllegalArgumentException e) {
            throw OwnWrites.invalidToken(e.getMessage());
        }
        if (ownWrites == null) {
            // every read runs on the primary, which has everything the token names
            return;
        }
        lock();
        try {
            ownWrites.apply(pool, t);
        } finally {
            unlock();
        }
    }

    // ---------------------------------------------------------------- objects that live on a server connection

    @Override
    public DatabaseMetaData getMetaData() throws SQLException {
        checkOpen();
        return (DatabaseMetaData) Proxy.newProxyInstance(DatabaseMetaData.class.getClassLoader(),
                new Class<?>[] {DatabaseMetaData.class}, new LogicalDatabaseMetaData(this));
    }

    @Override
    public Array createArrayOf(String typeName, Object[] elements) throws SQLException {
        checkOpen();
        // Read completely: pgjdbc's array would look up its element type later on a connection no longer ours.
        return withServer(p -> new DetachedArray(p.connection().createArrayOf(typeName, elements),
                LeaseScope.current(this)));
    }

    @Override
    public Struct createStruct(String typeName, Object[] attributes) throws SQLException {
        checkOpen();
        return withServer(p -> p.connection().createStruct(typeName, attributes));
    }

    @Override
    public Clob createClob() throws SQLException {
        checkOpen();
        return withServer(p -> p.connection().createClob());
    }

    @Override
    public Blob createBlob() throws SQLException {
        checkOpen();
        return withServer(p -> p.connection().createBlob());
    }

    @Override
    public NClob createNClob() throws SQLException {
        checkOpen();
        return withServer(p -> p.connection().createNClob());
    }

    @Override
    public SQLXML createSQLXML() throws SQLException {
        checkOpen();
        return withServer(p -> p.connection().createSQLXML());
    }

    @Override
    public boolean isValid(int timeout) throws SQLException {
        if (timeout < 0) {
            throw new SQLException("Invalid timeout (" + timeout + "<0).", "HY024");
        }
        if (closed || pool.isClosed()) {
            return false;
        }
        lock();
        try {
            // Without a server connection there is nothing to check: the next statement borrows a
            // connection the pool has checked (server_check_delay), so waiting for one here would only
            // turn a busy pool into a false "invalid".
            PhysicalConnection p = physical;
            return p == null || p.connection().isValid(timeout);
        } finally {
            unlock();
        }
    }

    /**
     * {@code unwrap(PGConnection.class)} and friends hand out the pgjdbc connection itself, so the logical
     * connection is pinned to it: COPY, large objects, LISTEN/NOTIFY and the like then work as with pgjdbc.
     */
    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        if (iface.isAssignableFrom(BaseConnection.class) || iface == PGConnection.class) {
            lock();
            try {
                pinTo(PinReason.UNWRAP);
                return iface.cast(physical.connection());
            } finally {
                unlock();
            }
        }
        throw new SQLException("Cannot unwrap to " + iface.getName(), "HY000");
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return iface.isInstance(this) || iface.isAssignableFrom(BaseConnection.class) || iface == PGConnection.class;
    }

    // ---------------------------------------------------------------- closing

    @Override
    public void close() throws SQLException {
        if (closed) {
            return;
        }
        closeWith(null);
    }

    /**
     * Also true once the pool is closed while this connection holds no server connection: it can run nothing more
     * (HikariCP's shutdown closes its connections). One still holding a server connection may finish its work,
     * which the pool's close waits for. Read on another thread, the loan is what that thread last saw.
     */
    @Override
    public boolean isClosed() {
        return closed || loan == null && pool.isClosed();
    }

    /** Closes at once from any thread: the server connection in use is closed, not returned. */
    @Override
    public void abort(Executor executor) throws SQLException {
        if (closed || !closeOnce()) {
            return;
        }
        Loan l = loan;
        if (l != null) {
            // Read without the lock, so it may be a loan this connection already ended: the pool then refuses
            // the discard, as only the holder of a loan can end it.
            l.discard(this, new SQLException("connection aborted", "08003"));
        }
        leavePool();
    }

    @Override
    public String toString() {
        PhysicalConnection p = physical;
        PinReason pin = pinReason();
        return "LogicalConnection[" + pool + (p != null ? ", on " + p : ", no server connection")
                + (pin != null ? ", pinned: " + pin.description() : "") + "]";
    }
}
