package io.pgmux.jdbc.physical;

import io.pgmux.core.pool.ServerHandle;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.TransactionState;

/**
 * One pgjdbc connection to the server, as the pool holds it, with the session settings it carries right
 * now, so that a borrower changes only what differs from what it wants.
 */
public final class PhysicalConnection {
    private final BaseConnection connection;
    private final ServerHandle handle;
    private final String initSql;
    /** The socket's own input, under pgjdbc's buffer and any TLS; null when the socket is not known. */
    private final InputStream socketInput;

    /** As opened: what RESET / DISCARD ALL bring the session back to. */
    private final int openedIsolation;
    private final String openedSchema;
    private final String openedApplicationName;
    private final int openedHoldability;

    private boolean autoCommit = true;
    private boolean readOnly;
    private int isolation;
    private String schema;
    private String applicationName;
    private int networkTimeoutMillis;
    private int holdability;
    private Map<String, Class<?>> typeMap = Collections.emptyMap();
    /**
     * Set when a session SET ran inside a transaction: a ROLLBACK would undo it, so the tracked value
     * is no longer known to be the server's and is sent again next time.
     */
    private boolean schemaUncertain;
    private boolean applicationNameUncertain;
    /**
     * The JDBC layer's record of this connection's loans, set at its first loan and kept: read by each
     * borrower and by the pool's reclaimer, which checks the loan itself before acting on it.
     */
    private Object borrower;

    PhysicalConnection(BaseConnection connection, ServerHandle handle, String initSql, Socket socket)
            throws SQLException {
        this.connection = connection;
        this.handle = handle;
        this.initSql = initSql;
        this.socketInput = inputOf(socket);
        this.openedIsolation = connection.getTransactionIsolation();
        this.openedSchema = connection.getSchema();
        this.openedApplicationName = connection.getClientInfo("ApplicationName");
        this.openedHoldability = connection.getHoldability();
        this.holdability = openedHoldability;
        this.networkTimeoutMillis = connection.getNetworkTimeout();
        restoreOpenedState();
    }

    private static InputStream inputOf(Socket socket) {
        if (socket == null) {
            return null;
        }
        try {
            return socket.getInputStream();
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * Whether the server has written to the connection since pgjdbc read its last response, which an
     * idle session never does unless it is ending: a terminated backend (pg_terminate_backend, a fast
     * shutdown, a crash) writes its FATAL error and closes. Reads nothing: one FIONREAD system call on the
     * socket. False when the socket is not known (the application's own socketFactory); a few
     * asynchronous messages (a NOTICE, a ParameterStatus after a reload or a promotion) also answer true.
     */
    public boolean serverSpokeUnasked() {
        InputStream in = socketInput;
        if (in == null) {
            return false;
        }
        try {
            return in.available() > 0;
        } catch (IOException e) {
            return true;
        }
    }

    private void restoreOpenedState() {
        isolation = openedIsolation;
        schema = openedSchema;
        applicationName = openedApplicationName;
        schemaUncertain = false;
        applicationNameUncertain = false;
    }

    public BaseConnection connection() {
        return connection;
    }

    public ServerHandle handle() {
        return handle;
    }

    public Object borrower() {
        return borrower;
    }

    public void borrower(Object value) {
        borrower = value;
    }

    /** The backend's process id, as pg_stat_activity shows it. */
    public int backendPid() {
        return connection.getBackendPID();
    }

    /** What the server last reported in ReadyForQuery: idle, in a transaction, or in a failed one. */
    public TransactionState transactionState() {
        return connection.getTransactionState();
    }

    public int openedIsolation() {
        return openedIsolation;
    }

    public String openedSchema() {
        return openedSchema;
    }

    public String openedApplicationName() {
        return openedApplicationName;
    }

    public int openedHoldability() {
        return openedHoldability;
    }

    public boolean autoCommit() {
        return autoCommit;
    }

    public void autoCommit(boolean value) throws SQLException {
        if (autoCommit != value) {
            connection.setAutoCommit(value);
            autoCommit = value;
        }
    }

    public void readOnly(boolean value) throws SQLException {
        if (readOnly != value) {
            connection.setReadOnly(value);
            readOnly = value;
        }
    }

    public void isolation(int level) throws SQLException {
        if (isolation != level) {
            connection.setTransactionIsolation(level);
            isolation = level;
        }
    }

    public void schema(String value) throws SQLException {
        if (schemaUncertain || !Objects.equals(schema, value)) {
            connection.setSchema(value);
            schema = value;
            schemaUncertain = inTransaction();
        }
    }

    public void applicationName(String value) throws SQLException {
        if (applicationNameUncertain || !Objects.equals(applicationName, value)) {
            connection.setClientInfo("ApplicationName", value);
            applicationName = value;
            applicationNameUncertain = inTransaction();
        }
    }

    private boolean inTransaction() {
        return connection.getTransactionState() != TransactionState.IDLE;
    }

    /** Applies a type map; null means the empty map a new connection has. */
    public void typeMap(Map<String, Class<?>> value) throws SQLException {
        Map<String, Class<?>> wanted = value == null ? Collections.emptyMap() : value;
        if (!typeMap.equals(wanted)) {
            connection.setTypeMap(new HashMap<>(wanted));
            typeMap = wanted;
        }
    }

    /**
     * Ends whatever transaction the server has open: through pgjdbc when it began it (autocommit off),
     * with SQL ROLLBACK when the client began it with SQL (pgjdbc refuses rollback() in autocommit).
     */
    public void rollback() throws SQLException {
        if (connection.getAutoCommit()) {
            try (Statement st = connection.createStatement()) {
                st.execute("ROLLBACK");
            }
        } else {
            connection.rollback();
        }
    }

    public void networkTimeout(Executor executor, int millis) throws SQLException {
        if (networkTimeoutMillis != millis) {
            connection.setNetworkTimeout(executor, millis);
            networkTimeoutMillis = millis;
        }
    }

    public void holdability(int value) throws SQLException {
        if (holdability != value) {
            connection.setHoldability(value);
            holdability = value;
        }
    }

    /**
     * Clears session state a pinned client may have left (SET, LISTEN, temporary tables, advisory
     * locks, SQL-level prepared statements) so the next client gets a clean session.
     */
    public void discardAll() throws SQLException {
        reset("DISCARD ALL");
    }

    /**
     * Runs a session reset ({@code server_reset_query}) outside any transaction, then connectionInitSql
     * again (the reset may have undone it). After DISCARD ALL the session is as opened; after any other
     * query the tracked settings are no longer known and are sent again by the next borrower.
     */
    public void reset(String resetQuery) throws SQLException {
        if (transactionState() != TransactionState.IDLE) {
            rollback();
        }
        boolean wasAutoCommit = autoCommit;
        autoCommit(true);
        try (Statement st = connection.createStatement()) {
            st.execute(resetQuery);
            if (initSql != null) {
                st.execute(initSql);
            }
        }
        if (resetQuery.trim().equalsIgnoreCase("DISCARD ALL")) {
            restoreOpenedState();
        } else {
            isolation = -1;
            schemaUncertain = true;
            applicationNameUncertain = true;
        }
        autoCommit(wasAutoCommit);
    }

    public boolean isClosed() {
        try {
            return connection.isClosed();
        } catch (SQLException e) {
            return true;
        }
    }

    @Override
    public String toString() {
        return "PhysicalConnection[pid=" + backendPid() + "]";
    }
}
