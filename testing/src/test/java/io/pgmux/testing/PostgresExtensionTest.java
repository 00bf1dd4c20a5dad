package io.pgmux.testing;

import static io.pgmux.testing.TestUsersTest.query;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.sql.Connection;
import java.sql.SQLException;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

@PostgresTest
class PostgresExtensionTest {

    private static TestDatabase fromBeforeAll;

    @BeforeAll
    static void remember(TestDatabase database) {
        fromBeforeAll = database;
    }

    @Test
    void connectsToTheClassDatabase(TestDatabase database) throws SQLException {
        try (Connection connection = database.connect()) {
            assertEquals(database.name(), query(connection, "SELECT current_database()"));
        }
    }

    @Test
    void namesTheDatabaseAfterTheTestClass(TestDatabase database) {
        assertTrue(database.name().startsWith("t_postgresextensiontest_"), database.name());
    }

    @Test
    void injectsOneDatabaseIntoEveryMethodOfTheClass(TestDatabase database) {
        assertSame(fromBeforeAll, database);
    }

    @Test
    void injectsTheServerOfTheDatabase(TestDatabase database, PgServer server) {
        assertSame(database.server(), server);
    }

    @Test
    void dropsTheDatabaseAndItsUsersAfterTheClass(PgServer server) throws SQLException {
        runSample(RecordsItsDatabase.class);
        try (Connection connection = server.connect(server.maintenanceDatabase())) {
            assertEquals("0", query(connection,
                    "SELECT count(*) FROM pg_database WHERE datname = '" + RecordsItsDatabase.database + "'"));
            assertEquals("0", query(connection,
                    "SELECT count(*) FROM pg_roles WHERE rolname = '" + RecordsItsDatabase.user + "'"));
        }
    }

    @Test
    void dropsTheDatabaseEvenWithConnectionsLeftOpen(PgServer server) throws SQLException {
        runSample(LeavesAConnectionOpen.class);
        try (Connection connection = server.connect(server.maintenanceDatabase())) {
            assertEquals("0", query(connection,
                    "SELECT count(*) FROM pg_database WHERE datname = '" + LeavesAConnectionOpen.database + "'"));
        }
    }

    @Test
    void restoresServerWideSettingsAfterTheClass(PgServer server) throws SQLException {
        int maxConnections = server.maxConnections();
        runSample(ChangesTheServer.class);
        assertEquals(maxConnections, server.maxConnections());
        try (Connection connection = server.connect(server.maintenanceDatabase())) {
            assertEquals("off", query(connection, "SHOW log_connections"));
        }
    }

    @Test
    void startsAServerTheClassLeftStopped(PgServer server) throws SQLException {
        runSample(StopsTheServer.class);
        try (Connection connection = server.connect(server.maintenanceDatabase())) {
            assertEquals("1", query(connection, "SELECT 1"));
        }
    }

    @Nested
    class NestedClass {

        @Test
        void getsADatabaseOfItsOwn(TestDatabase database) {
            assertNotEquals(fromBeforeAll.name(), database.name());
        }
    }

    /** Runs the sample class to its end; a sample the server cannot serve skips the calling test too. */
    private static void runSample(Class<?> sample) {
        Events events = EngineTestKit.engine("junit-jupiter").selectors(selectClass(sample)).execute().testEvents();
        events.aborted().stream().findFirst().ifPresent(aborted -> Assumptions.abort("the sample was skipped: "
                + aborted.getPayload(TestExecutionResult.class).flatMap(TestExecutionResult::getThrowable)
                        .map(Throwable::getMessage).orElse("no reason given")));
        events.assertStatistics(stats -> stats.started(1).succeeded(1));
    }

    @PostgresTest
    static class RecordsItsDatabase {
        static String database;
        static String user;

        @Test
        void records(TestDatabase testDatabase) {
            database = testDatabase.name();
            user = testDatabase.createUser(PasswordMethod.SCRAM_SHA_256).name();
        }
    }

    @PostgresTest
    static class LeavesAConnectionOpen {
        static String database;

        @Test
        void opens(TestDatabase testDatabase) throws SQLException {
            database = testDatabase.name();
            testDatabase.connect();
        }
    }

    @PostgresTest
    static class ChangesTheServer {
        @Test
        void changes(PgServer server) {
            server.setMaxConnections(30);
            server.enableLogConnections();
        }
    }

    @PostgresTest
    static class StopsTheServer {
        @Test
        void stops(PgServer server) {
            server.stop();
        }
    }
}
