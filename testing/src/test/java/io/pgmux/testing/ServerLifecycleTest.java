package io.pgmux.testing;

import static io.pgmux.testing.TestUsersTest.query;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

@PostgresTest
class ServerLifecycleTest {

    private final TestDatabase database;
    private final PgServer server;

    ServerLifecycleTest(TestDatabase database) {
        this.database = database;
        this.server = database.server();
    }

    @Test
    void restartDropsOpenConnections() throws SQLException {
        try (Connection before = database.connect()) {
            assertEquals("1", query(before, "SELECT 1"));
            server.restart();
            assertThrows(SQLException.class, () -> query(before, "SELECT 1"));
        }
        try (Connection after = database.connect()) {
            assertEquals("1", query(after, "SELECT 1"));
        }
    }

    @Test
    void restartKeepsThePortAndTheData() throws SQLException {
        int port = server.port();
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE survives (id int)");
            statement.execute("INSERT INTO survives VALUES (7)");
        }
        server.restart();
        assertEquals(port, server.port());
        try (Connection connection = database.connect()) {
            assertEquals("7", query(connection, "SELECT id FROM survives"));
        }
    }

    @Test
    void stoppedServerRefusesConnectionsUntilStarted() throws SQLException {
        server.stop();
        SQLException refusal = assertThrows(SQLException.class, () -> database.connect().close());
        assertEquals("08001", refusal.getSQLState());
        server.start();
        try (Connection connection = database.connect()) {
            assertEquals("1", query(connection, "SELECT 1"));
        }
    }

    @Test
    void maxConnectionsTakesEffect() {
        server.setMaxConnections(25);
        assertEquals(25, server.maxConnections());
    }

    @Test
    void connectionsBeyondMaxConnectionsAreRefusedWithSqlState53300() throws SQLException {
        server.setMaxConnections(8);
        List<Connection> opened = new ArrayList<>();
        try {
            SQLException refusal = null;
            while (refusal == null && opened.size() < 20) {
                try {
                    opened.add(database.connect());
                } catch (SQLException e) {
                    refusal = e;
                }
            }
            assertEquals("53300", refusal == null ? "none" : refusal.getSQLState());
            assertEquals("8", query(opened.get(0),
                    "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'"));
        } finally {
            for (Connection connection : opened) {
                connection.close();
            }
        }
    }
}
