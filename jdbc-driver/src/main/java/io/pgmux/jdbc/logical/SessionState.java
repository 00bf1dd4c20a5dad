package io.pgmux.jdbc.logical;

import io.pgmux.core.pool.ClientAdmission;
import io.pgmux.jdbc.physical.PhysicalConnection;
import java.sql.Connection;
import java.sql.SQLClientInfoException;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executor;
import org.postgresql.core.TransactionState;

/**
 * A logical connection's JDBC session state (auto-commit and read-only are its {@link Borrower}'s, which borrows
 * by them), kept here whichever server connection it holds, and replayed onto each one it borrows where that
 * one differs: isolation, catalog, schema, application name and client info, holdability, type map, network
 * timeout, and the warnings collected from pgjdbc.
 */
abstract class SessionState extends Borrower implements Connection {
    private Integer isolation;
    /** Created on first use: most connections never set any of it. */
    private Settings settings;

    /** A client the pool admitted as {@code admission}, its session state as the pool's defaults say. */
    SessionState(ServerPool pool, ClientAdmission admission) {
        super(pool, admission);
        SessionDefaults d = pool.sessionDefaults();
        this.isolation = d.isolation;
        if (d.catalog != null || d.schema != null) {
            Settings st = settings();
            st.catalog = d.catalog;
            st.schema = d.schema;
        }
    }

    /** The JDBC session state that few connections set, and warnings collected from pgjdbc. */
    private static final class Settings {
        String catalog;
        String schema;
        String applicationName;
        Properties clientInfo;
        Executor networkTimeoutExecutor;
        int networkTimeoutMillis;
        int holdability = -1;
        Map<String, Class<?>> typeMap;
        SQLWarning warnings;
    }

    /** pgjdbc's socketTimeout of the pool's URL: the network timeout until setNetworkTimeout changes it. */
    private int defaultNetworkTimeout() {
        return pool.sessionDefaults().networkTimeoutMillis;
    }

    private Settings settings() {
        Settings st = settings;
        if (st == null) {
            st = new Settings();
            st.networkTimeoutMillis = defaultNetworkTimeout();
            settings = st;
        }
        return st;
    }

    @Override
    final void applyState(PhysicalConnection p) throws SQLException {
        p.autoCommit(autoCommit);
        p.readOnly(readOnly);
        p.isolation(isolation != null ? isolation : p.openedIsolation());
        Settings st = settings;
        if (st == null) {
            p.schema(p.openedSchema());
            p.applicationName(p.openedApplicationName());
            p.networkTimeout(null, defaultNetworkTimeout());
            p.holdability(p.openedHoldability());
            p.typeMap(null);
            return;
        }
        p.schema(st.schema != null ? st.schema : p.openedSchema());
        p.applicationName(st.applicationName != null ? st.applicationName : p.openedApplicationName());
        p.networkTimeout(st.networkTimeoutExecutor, st.networkTimeoutMillis);
        p.holdability(st.holdability != -1 ? st.holdability : p.openedHoldability());
        p.typeMap(st.typeMap);
    }

    @Override
    public void setTransactionIsolation(int level) throws SQLException {
        checkOpen();
        switch (level) {
            case TRANSACTION_READ_UNCOMMITTED:
            case TRANSACTION_READ_COMMITTED:
            case TRANSACTION_REPEATABLE_READ:
            case TRANSACTION_SERIALIZABLE:
                break;
            default:
                throw new SQLException("Transaction isolation level " + level + " not supported.", "0A000");
        }
        lock();
        try {
            if (physical != null && physical.transactionState() != TransactionState.IDLE) {
                throw new SQLException("Cannot change transaction isolation level in the middle of a transaction.",
                        "25001");
            }
            isolation = level;
            if (physical != null) {
                physical.isolation(level);
            }
        } finally {
            unlock();
        }
    }

    @Override
    public int getTransactionIsolation() throws SQLException {
        checkOpen();
        if (isolation != null) {
            return isolation;
        }
        return physical != null ? physical.openedIsolation() : pool.serverDefaults().isolation;
    }

    @Override
    public void setReadOnly(boolean value) throws SQLException {
        checkOpen();
        lock();
        try {
            if (physical != null && physical.transactionState() != TransactionState.IDLE) {
                throw new SQLException("Cannot change transaction read-only property in the middle of a "
                        + "transaction.", "25006");
            }
            readOnly = value;
            if (physical != null) {
                physical.readOnly(value);
            }
        } finally {
            unlock();
        }
    }

    @Override
    public boolean isReadOnly() throws SQLException {
        checkOpen();
        return readOnly;
    }

    @Override
    public void setCatalog(String value) throws SQLException {
        checkOpen();
        if (value != null || settings != null) {
            settings().catalog = value;
        }
    }

    @Override
    public String getCatalog() throws SQLException {
        checkOpen();
        if (settings != null && settings.catalog != null) {
            return settings.catalog;
        }
        return pool.serverDefaults().catalog;
    }

    @Override
    public void setSchema(String value) throws SQLException {
        checkOpen();
        lock();
        try {
            if (value != null || settings != null) {
                settings().schema = value;
            }
            if (physical != null) {
                try {
                    physical.schema(value != null ? value : physical.openedSchema());
                } catch (SQLException e) {
                    throw failed(e);
                }
            }
        } finally {
            unlock();
        }
    }

    @Override
    public String getSchema() throws SQLException {
        checkOpen();
        if (settings != null && settings.schema != null) {
            return settings.schema;
        }
        return physical != null ? physical.openedSchema() : pool.serverDefaults().schema;
    }

    @Override
    public void setClientInfo(String name, String value) throws SQLClientInfoException {
        if (closed) {
            throw new SQLClientInfoException("This connection has been closed.", Collections.emptyMap());
        }
        if ("ApplicationName".equals(name)) {
            if (value != null || settings != null) {
                settings().applicationName = value;
            }
            lock();
            try {
                if (physical != null) {
                    physical.applicationName(value != null ? value : physical.openedApplicationName());
                }
            } catch (SQLException e) {
                throw new SQLClientInfoException(e.getMessage(), e.getSQLState(), Collections.emptyMap(), e);
            } finally {
                unlock();
            }
        }
        if (value == null) {
            if (settings != null && settings.clientInfo != null) {
                settings.clientInfo.remove(name);
            }
        } else {
            Settings st = settings();
            if (st.clientInfo == null) {
                st.clientInfo = new Properties();
            }
            st.clientInfo.setProperty(name, value);
        }
    }

    @Override
    public void setClientInfo(Properties properties) throws SQLClientInfoException {
        for (String name : properties.stringPropertyNames()) {
            setClientInfo(name, properties.getProperty(name));
        }
    }

    @Override
    public String getClientInfo(String name) throws SQLException {
        checkOpen();
        if ("ApplicationName".equals(name) && (settings == null || settings.applicationName == null)) {
            return physical != null ? physical.openedApplicationName()
                    : pool.serverDefaults().applicationName;
        }
        return settings == null || settings.clientInfo == null ? null : settings.clientInfo.getProperty(name);
    }

    @Override
    public Properties getClientInfo() throws SQLException {
        checkOpen();
        Properties copy = new Properties();
        if (settings != null && settings.clientInfo != null) {
            copy.putAll(settings.clientInfo);
        }
        return copy;
    }

    @Override
    public void setHoldability(int value) throws SQLException {
        checkOpen();
        if (value != java.sql.ResultSet.HOLD_CURSORS_OVER_COMMIT
                && value != java.sql.ResultSet.CLOSE_CURSORS_AT_COMMIT) {
            throw new SQLException("Unknown ResultSet holdability setting: " + value + ".", "22023");
        }
        settings().holdability = value;
        if (physical != null) {
            physical.holdability(value);
        }
    }

    @Override
    public int getHoldability() throws SQLException {
        checkOpen();
        int value = settings == null ? -1 : settings.holdability;
        return value != -1 ? value : java.sql.ResultSet.CLOSE_CURSORS_AT_COMMIT;
    }

    @Override
    public void setTypeMap(Map<String, Class<?>> map) throws SQLException {
        checkOpen();
        Map<String, Class<?>> copy = map == null ? null : new HashMap<>(map);
        if (copy != null || settings != null) {
            settings().typeMap = copy;
        }
        if (physical != null) {
            physical.typeMap(copy);
        }
    }

    @Override
    public Map<String, Class<?>> getTypeMap() throws SQLException {
        checkOpen();
        return settings == null || settings.typeMap == null ? new HashMap<>() : new HashMap<>(settings.typeMap);
    }

    @Override
    public void setNetworkTimeout(Executor executor, int milliseconds) throws SQLException {
        checkOpen();
        if (milliseconds < 0) {
            throw new SQLException("Network timeout must be a value greater than or equal to 0.", "HY024");
        }
        if (executor != null || milliseconds != defaultNetworkTimeout() || settings != null) {
            Settings st = settings();
            st.networkTimeoutExecutor = executor;
            st.networkTimeoutMillis = milliseconds;
        }
        if (physical != null) {
            physical.networkTimeout(executor, milliseconds);
        }
    }

    @Override
    public int getNetworkTimeout() throws SQLException {
        checkOpen();
        return settings == null ? defaultNetworkTimeout() : settings.networkTimeoutMillis;
    }

    @Override
    public SQLWarning getWarnings() throws SQLException {
        checkOpen();
        PhysicalConnection p = physical;
        if (p != null) {
            SQLWarning w = p.connection().getWarnings();
            if (w != null) {
                addWarning(w);
                p.connection().clearWarnings();
            }
        }
        return settings == null ? null : settings.warnings;
    }

    private void addWarning(SQLWarning w) {
        Settings st = settings();
        if (st.warnings == null) {
            st.warnings = w;
        } else {
            st.warnings.setNextWarning(w);
        }
    }

    @Override
    public void clearWarnings() throws SQLException {
        checkOpen();
        if (settings != null) {
            settings.warnings = null;
        }
        PhysicalConnection p = physical;
        if (p != null) {
            p.connection().clearWarnings();
        }
    }
}
