package io.pgmux.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@PostgresTest
class TestUsersTest {

    private final TestDatabase database;

    TestUsersTest(TestDatabase database) {
        this.database = database;
    }

    @ParameterizedTest
    @EnumSource(PasswordMethod.class)
    void userLogsInWithItsPassword(PasswordMethod method) throws SQLException {
        TestUser user = database.createUser(method);
        try (Connection connection = database.connect(user)) {
            assertEquals(user.name(), query(connection, "SELECT current_user"));
        }
    }

    @ParameterizedTest
    @EnumSource(PasswordMethod.class)
    void userIsRefusedAWrongPasswordWithSqlState28P01(PasswordMethod method) {
        TestUser user = database.createUser(method);
        SQLException refusal = assertThrows(SQLException.class, () -> database.connect(user.name(), "wrong").close());
        assertEquals("28P01", refusal.getSQLState());
    }

    @ParameterizedTest
    @EnumSource(PasswordMethod.class)
    void serverDemandsTheUsersMethodOverTcp(PasswordMethod method) throws Exception {
        TestUser user = database.createUser(method);
        assertEquals(method.authenticationRequestCode(),
                AuthProbe.requestedAuthentication(database.host(), database.port(), user.name(), database.name()));
    }

    @ParameterizedTest
    @EnumSource(PasswordMethod.class)
    void passwordIsStoredWithTheMethodsEncryption(PasswordMethod method) throws SQLException {
        TestUser user = database.createUser(method);
        String prefix = method == PasswordMethod.MD5 ? "md5" : "SCRAM-SHA-256$";
        try (Connection connection = database.connect()) {
            String stored = query(connection, "SELECT rolpassword FROM pg_authid WHERE rolname = '" + user.name() + "'");
            assertTrue(stored.startsWith(prefix), stored);
        }
    }

    @Test
    void userWithAChosenNameAndPasswordLogsIn() throws SQLException {
        database.createUser("chosen_user", "it's a secret", PasswordMethod.SCRAM_SHA_256);
        try (Connection connection = database.connect("chosen_user", "it's a secret")) {
            assertEquals("chosen_user", query(connection, "SELECT current_user"));
        }
    }

    @Test
    void usersMayCreateTablesInThePublicSchema() throws SQLException {
        TestUser user = database.createUser(PasswordMethod.SCRAM_SHA_256);
        try (Connection connection = database.connect(user); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE owned_by_user (id int)");
            assertEquals(user.name(), query(connection,
                    "SELECT tableowner FROM pg_tables WHERE tablename = 'owned_by_user'"));
        }
    }

    static String query(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet row = statement.executeQuery(sql)) {
            row.next();
            return row.getString(1);
        }
    }
}
