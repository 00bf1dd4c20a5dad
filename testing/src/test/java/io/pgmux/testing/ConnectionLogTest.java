package io.pgmux.testing;

import static io.pgmux.testing.TestUsersTest.query;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.sql.Connection;
import java.sql.SQLException;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

@PostgresTest
class ConnectionLogTest {

    private final TestDatabase database;

    ConnectionLogTest(TestDatabase database) {
        this.database = database;
    }

    @BeforeAll
    static void logConnections(PgServer server) {
        server.enableLogConnections();
    }

    @Test
    void newConnectionsSeeLogConnectionsOn() throws SQLException {
        try (Connection connection = database.connect()) {
            assertEquals("on", query(connection, "SHOW log_connections"));
        }
    }

    @Test
    void countsEachAuthorizedConnectionOfAUser() throws SQLException {
        TestUser user = database.createUser(PasswordMethod.SCRAM_SHA_256);
        long before = database.countConnectionAuthorizations(user.name());
        for (int i = 0; i < 3; i++) {
            database.connect(user).close();
        }
        assertEquals(before + 3, database.countConnectionAuthorizations(user.name()));
    }

    @Test
    void doesNotCountRefusedLogins() throws SQLException {
        TestUser user = database.createUser(PasswordMethod.MD5);
        long before = database.countConnectionAuthorizations(user.name());
        assertThrows(SQLException.class, () -> database.connect(user.name(), "wrong").close());
        assertEquals(before, database.countConnectionAuthorizations(user.name()));
    }

    @Test
    void countsEveryUserOfTheDatabaseWithoutAFilter() throws SQLException {
        TestUser user = database.createUser(PasswordMethod.PASSWORD);
        long before = database.countConnectionAuthorizations();
        database.connect(user).close();
        database.connect().close();
        assertEquals(before + 2, database.countConnectionAuthorizations());
    }

    @Test
    void ignoresConnectionsToOtherDatabases() throws SQLException {
        long before = database.countConnectionAuthorizations();
        database.server().connect(database.server().maintenanceDatabase()).close();
        assertEquals(before, database.countConnectionAuthorizations());
    }
}
