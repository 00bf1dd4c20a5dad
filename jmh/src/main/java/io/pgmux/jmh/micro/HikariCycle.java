package io.pgmux.jmh.micro;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;

/** HikariCP's {@code getConnection()} then {@code close()}, as HikariCP-benchmark's ConnectionBench cycles. */
final class HikariCycle implements PoolCycle {
    static final String NAME = "hikari";

    private final HikariDataSource dataSource;

    HikariCycle(HikariDataSource dataSource) {
        this.dataSource = dataSource;
    }

    @Override
    public Object borrowAndReturn() throws SQLException {
        Connection connection = dataSource.getConnection();
        connection.close();
        return connection;
    }

    @Override
    public void close() {
        dataSource.close();
    }
}
