package io.pgmux.jmh.stub;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.logging.Logger;

/**
 * The JDBC driver of {@code jdbc:stub} (and {@code jdbc:stub:…}) URLs: every connect returns a new
 * {@link StubConnection} at once, so that pools can be benchmarked without a server. Registered with
 * {@link DriverManager} when loaded (also found through {@code META-INF/services/java.sql.Driver}).
 */
public final class StubDriver implements Driver {
    public static final String URL = "jdbc:stub";

    static {
        try {
            DriverManager.registerDriver(new StubDriver());
        } catch (SQLException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @Override
    public Connection connect(String url, Properties info) {
        return acceptsURL(url) ? new StubConnection() : null;
    }

    @Override
    public boolean acceptsURL(String url) {
        return url != null && (url.equals(URL) || url.startsWith(URL + ":"));
    }

    @Override
    public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) {
        return new DriverPropertyInfo[0];
    }

    @Override
    public int getMajorVersion() {
        return 1;
    }

    @Override
    public int getMinorVersion() {
        return 0;
    }

    @Override
    public boolean jdbcCompliant() {
        return false;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("the stub driver does not log");
    }
}
