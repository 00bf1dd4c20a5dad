package io.pgmux.testing;

import static io.pgmux.testing.TestUsersTest.query;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@PostgresTest
class BackendsTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final TestDatabase database;
    private final List<Connection> opened = new ArrayList<>();

    BackendsTest(TestDatabase database) {
        this.database = database;
    }

    @BeforeEach
    void startWithNoConnections() {
        assertEquals(0, database.awaitConnections(Backends.all(), 0, WAIT));
    }

    @AfterEach
    void closeConnections() throws SQLException {
        for (Connection connection : opened) {
            connection.close();
        }
    }

    @Test
    void countsNothingWhenOnlyTheFixtureIsConnected() {
        assertEquals(0, database.countConnections());
    }

    @Test
    void countsEveryConnectionToTheDatabase() throws SQLException {
        open(database.superuser(), database.superuserPassword(), "first");
        open(database.superuser(), database.superuserPassword(), "second");
        open(database.superuser(), database.superuserPassword(), "second");
        assertEquals(3, database.countConnections());
    }

    @Test
    void countsConnectionsOfOneUser() throws SQLException {
        TestUser user = database.createUser(PasswordMethod.SCRAM_SHA_256);
        open(user.name(), user.password(), "app");
        open(user.name(), user.password(), "app");
        open(database.superuser(), database.superuserPassword(), "app");
        assertEquals(2, database.countConnections(Backends.ofUser(user.name())));
    }

    @Test
    void countsConnectionsWithOneApplicationName() throws SQLException {
        open(database.superuser(), database.superuserPassword(), "wanted");
        open(database.superuser(), database.superuserPassword(), "other");
        assertEquals(1, database.countConnections(Backends.withApplicationName("wanted")));
    }

    @Test
    void countsConnectionsMatchingUserAndApplicationName() throws SQLException {
        TestUser user = database.createUser(PasswordMethod.SCRAM_SHA_256);
        open(user.name(), user.password(), "wanted");
        open(user.name(), user.password(), "other");
        open(database.superuser(), database.superuserPassword(), "wanted");
        assertEquals(1, database.countConnections(Backends.ofUser(user.name()).andApplicationName("wanted")));
    }

    @Test
    void ignoresConnectionsToOtherDatabases() throws SQLException {
        opened.add(database.server().connect(database.server().maintenanceDatabase()));
        assertEquals(0, database.countConnections());
    }

    @Test
    void awaitsClosedConnectionsLeavingTheServer() throws SQLException {
        open(database.superuser(), database.superuserPassword(), "closing").close();
        assertEquals(0, database.awaitConnections(Backends.all(), 0, WAIT));
    }

    @Test
    void terminatesTheBackendsOfOneUserOnly() throws SQLException {
        TestUser user = database.createUser(PasswordMethod.SCRAM_SHA_256);
        Connection doomed = open(user.name(), user.password(), "app");
        open(user.name(), user.password(), "app");
        Connection survivor = open(database.superuser(), database.superuserPassword(), "app");

        assertEquals(2, database.terminateBackends(Backends.ofUser(user.name())));

        SQLException failure = assertThrows(SQLException.class, () -> query(doomed, "SELECT 1"));
        assertEquals("57P01", failure.getSQLState());
        assertDoesNotThrow(() -> query(survivor, "SELECT 1"));
        assertEquals(1, database.countConnections());
    }

    @Test
    void terminatesTheBackendsWithOneApplicationName() throws SQLException {
        open(database.superuser(), database.superuserPassword(), "doomed");
        open(database.superuser(), database.superuserPassword(), "spared");

        assertEquals(1, database.terminateBackends(Backends.withApplicationName("doomed")));
        assertEquals(0, database.countConnections(Backends.withApplicationName("doomed")));
        assertEquals(1, database.countConnections(Backends.withApplicationName("spared")));
    }

    @Test
    void terminatesEveryBackendOfTheDatabase() throws SQLException {
        open(database.superuser(), database.superuserPassword(), "one");
        open(database.superuser(), database.superuserPassword(), "two");
        assertEquals(2, database.terminateBackends());
        assertEquals(0, database.countConnections());
    }

    private Connection open(String user, String password, String applicationName) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", user);
        properties.setProperty("password", password);
        properties.setProperty("ApplicationName", applicationName);
        Connection connection = java.sql.DriverManager.getConnection(database.jdbcUrl(), properties);
        opened.add(connection);
        return connection;
    }
}
