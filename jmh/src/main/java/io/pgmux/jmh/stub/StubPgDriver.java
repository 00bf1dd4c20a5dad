package io.pgmux.jmh.stub;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverPropertyInfo;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.logging.Logger;

/**
 * The driver of {@code jdbc:stubpg} URLs: every connect returns a new {@link StubPgConnection} at once.
 * Not registered with DriverManager; pools are given it (HikariCP by class name), so that every pool
 * compared sits on the very same stub.
 */
public final class StubPgDriver implements Driver {
    public static final String URL = "jdbc:stubpg";

    @Override
    public Connection connect(String url, Properties info) {
        return acceptsURL(url) ? new StubPgConnection() : null;
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
