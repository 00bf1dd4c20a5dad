package io.pgmux.jmh.load;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.pgmux.core.config.PoolMode;
import io.pgmux.jdbc.PgMuxDataSource;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/** A pooling DataSource: every request takes a connection with getConnection() and closes it. */
final class PooledVariant implements Variant {
    /** Long enough that a thousand threads queueing for 20 HikariCP connections do not time out. */
    private static final long CONNECTION_TIMEOUT_MS = 120_000;

    private final String name;
    private final DataSource dataSource;
    private final Closeable closer;

    private PooledVariant(String name, DataSource dataSource, Closeable closer) {
        this.name = name;
        this.dataSource = dataSource;
        this.closer = closer;
    }

    static PooledVariant hikari(ServerTarget target, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(target.url());
        config.setUsername(target.user());
        config.setPassword(target.password());
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(size);
        config.setConnectionTimeout(CONNECTION_TIMEOUT_MS);
        config.setPoolName("hikari");
        // This constructor starts the pool now (the no-argument one would start it inside the run).
        HikariDataSource ds = new HikariDataSource(config);
        return new PooledVariant("HikariCP " + Versions.hikari() + " (pool " + size + ")", ds, ds);
    }

    static PooledVariant pgmux(ServerTarget target, int size, PoolMode mode) throws SQLException {
        PgMuxDataSource ds = new PgMuxDataSource();
        ds.setJdbcUrl(target.url());
        ds.setUsername(target.user());
        ds.setPassword(target.password());
        ds.setMaximumPoolSize(size);
        ds.setMinimumIdle(size);
        ds.setConnectionTimeout(CONNECTION_TIMEOUT_MS);
        ds.setPoolMode(mode);
        ds.setPoolName("pgmux-" + mode.configName());
        // Starts the pool now, as HikariDataSource(HikariConfig) does, rather than inside the run.
        ds.getConnection().close();
        return new PooledVariant("pgmux " + mode.configName() + " (pool " + size + ")", ds, ds);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Borrower borrower() {
        return new Borrower() {
            @Override
            public Connection take() throws SQLException {
                return dataSource.getConnection();
            }

            @Override
            public void giveBack(Connection connection) throws SQLException {
                connection.close();
            }

            @Override
            public void close() {
                // The pool owns the connections.
            }
        };
    }

    @Override
    public void close() {
        try {
            closer.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
