package io.pgmux.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.jdbc.credentials.Credentials;
import io.pgmux.jdbc.credentials.CredentialsProvider;
import io.pgmux.testing.Await;
import io.pgmux.testing.Backends;
import io.pgmux.testing.PasswordMethod;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.SecretVolume;
import io.pgmux.testing.Sql;
import io.pgmux.testing.TestDatabase;
import io.pgmux.testing.TestUser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** HikariCP 7's credentialsProvider and pgmux's file and command sources, against a real server. */
@PostgresTest
class CredentialsProviderTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final TestDatabase db;
    private final TestUser user;

    CredentialsProviderTest(TestDatabase db) {
        this.db = db;
        this.user = db.createUser(PasswordMethod.SCRAM_SHA_256);
    }

    @AfterEach
    void closeDriverPools() {
        PgMuxDriver.closeAll();
    }

    /** Counts its calls and gives the test user's password, or throws what the test sets. */
    private final class TestProvider implements CredentialsProvider {
        final AtomicInteger calls = new AtomicInteger();
        final AtomicReference<RuntimeException> failure = new AtomicReference<>();

        @Override
        public Credentials getCredentials() {
            calls.incrementAndGet();
            RuntimeException e = failure.get();
            if (e != null) {
                throw e;
            }
            return Credentials.of(null, user.password());
        }
    }

    private PgMuxDataSource dataSource(CredentialsProvider provider) {
        PgMuxDataSource ds = new PgMuxDataSource();
        ds.setJdbcUrl(db.jdbcUrl());
        ds.setUsername(user.name());
        ds.setCredentialsProvider(provider);
        return ds;
    }

    private static void run(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    @Test
    void asksTheProviderAtEachNewServerConnectionAndNeverAtABorrow() throws SQLException {
        TestProvider provider = new TestProvider();
        try (PgMuxDataSource ds = dataSource(provider)) {
            ds.setMaximumPoolSize(2);
            try (Connection a = ds.getConnection(); Connection b = ds.getConnection()) {
                a.setAutoCommit(false);
                b.setAutoCommit(false);
                run(a, "SELECT 1");
                run(b, "SELECT 1");
                a.commit();
                b.commit();
            }
            assertEquals(2, provider.calls.get(), "one call for each of the two server connections");
            for (int i = 0; i < 20; i++) {
                try (Connection c = ds.getConnection()) {
                    run(c, "SELECT 1");
                }
            }
            assertEquals(2, provider.calls.get(), "twenty borrows asked nothing");
            ds.getPoolMXBean().softEvictConnections();
            try (Connection c = ds.getConnection()) {
                run(c, "SELECT 1");
            }
            assertEquals(3, provider.calls.get(), "the replacement's login asked again");
        }
    }

    @Test
    void aProviderThatThrowsFailsThatLoginWith08001NamingItsErrorAndLeavesNoServerConnection() throws SQLException {
        TestProvider provider = new TestProvider();
        PgMuxDataSource source = dataSource(provider);
        source.setServerLoginRetry(100);
        try (PgMuxDataSource ds = source; Connection c = ds.getConnection()) {
            run(c, "SELECT 1");
            provider.failure.set(new IllegalStateException("Vault is sealed"));
            ds.getPoolMXBean().softEvictConnections();
            Await.equal(0, () -> db.countConnections(Backends.ofUser(user.name())), WAIT, "the old backend left");

            SQLException e = assertThrows(SQLException.class, () -> run(c, "SELECT 1"));
            assertEquals("08001", e.getSQLState());
            assertEquals("no credentials for a server login: credentialsProvider " + TestProvider.class.getName()
                    + " threw java.lang.IllegalStateException: Vault is sealed", e.getMessage());
            assertEquals(0, ds.getPoolMXBean().getTotalConnections(), "the pool holds no half-made connection");
            assertEquals(0, db.countConnections(Backends.ofUser(user.name())), "no server was contacted");
        }
    }

    @Test
    void theLoginAfterAProviderFailedWorksOnceTheProviderDoes() throws Exception {
        TestProvider provider = new TestProvider();
        try (PgMuxDataSource ds = dataSource(provider)) {
            ds.setServerLoginRetry(100);
            ds.setInitializationFailTimeout(-1);
            provider.failure.set(new IllegalStateException("token endpoint unreachable"));
            try (Connection c = ds.getConnection()) {
                assertEquals("08001", assertThrows(SQLException.class, () -> run(c, "SELECT 1")).getSQLState());
                provider.failure.set(null);
                Thread.sleep(150); // past serverLoginRetry, which keeps the refusal for the borrows meanwhile
                assertEquals(user.name(), Sql.value(c, "SELECT current_user"));
            }
        }
    }

    @Test
    void logsInAsTheUserTheProviderGives() throws SQLException {
        CredentialsProvider provider = () -> Credentials.of(user.name(), user.password());
        try (PgMuxDataSource ds = dataSource(provider)) {
            ds.setUsername(db.superuser());
            try (Connection c = ds.getConnection()) {
                assertEquals(user.name(), Sql.value(c, "SELECT current_user"));
            }
        }
    }

    @Test
    void aUserAndPasswordInTheUrlGiveWayToTheProvidersAnswer() throws SQLException {
        CredentialsProvider provider = () -> Credentials.of(user.name(), user.password());
        try (PgMuxDataSource ds = new PgMuxDataSource()) {
            ds.setJdbcUrl(db.jdbcUrl() + "?user=" + db.superuser() + "&password=wrong&ApplicationName=rotating");
            ds.setCredentialsProvider(provider);
            try (Connection c = ds.getConnection()) {
                assertEquals(user.name(), Sql.value(c, "SELECT current_user"));
                assertEquals("rotating", Sql.value(c, "SELECT current_setting('application_name')"));
            }
        }
    }

    @Test
    void createsTheProviderThatCredentialsProviderClassNameNamesInADriverUrl() throws SQLException {
        StaticTestCredentials.username = user.name();
        StaticTestCredentials.password = user.password();
        String url = db.jdbcUrl().replace("jdbc:postgresql:", "jdbc:pgmux:postgresql:")
                + "?credentialsProviderClassName=" + StaticTestCredentials.class.getName();
        try (Connection c = DriverManager.getConnection(url, new Properties())) {
            assertEquals(user.name(), Sql.value(c, "SELECT current_user"));
        }
    }

    @Test
    void aPasswordFileInADriverUrlLogsInWithTheFilesSecret(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("password"), user.password() + "\n");
        String url = db.jdbcUrl().replace("jdbc:postgresql:", "jdbc:pgmux:postgresql:")
                + "?user=" + user.name() + "&passwordFile=" + file;
        try (Connection c = DriverManager.getConnection(url, new Properties())) {
            assertEquals(user.name(), Sql.value(c, "SELECT current_user"));
        }
    }

    @Test
    void aServerConnectionKilledAfterARotationIsReplacedByALoginWithTheNewSecret(@TempDir Path dir) throws Exception {
        SecretVolume volume = new SecretVolume(dir, Map.of("password", user.password()));
        try (PgMuxDataSource ds = new PgMuxDataSource()) {
            ds.setJdbcUrl(db.jdbcUrl());
            ds.setUsername(user.name());
            ds.setPasswordFile(volume.file("password").toString());
            try (Connection c = ds.getConnection()) {
                int before = Sql.backendPid(c);
                String rotated = user.password() + "-next";
                volume.update(Map.of("password", rotated));
                try (Connection admin = db.connect(); Statement st = admin.createStatement()) {
                    st.execute("ALTER ROLE " + user.name() + " PASSWORD '" + rotated + "'");
                }
                assertEquals(1, db.terminateBackends(Backends.ofUser(user.name())));
                assertEquals(user.name(), Sql.value(c, "SELECT current_user"));
                assertTrue(Sql.backendPid(c) != before, "a new server connection serves it");
            }
        }
    }

    @Test
    void aPasswordCommandLogsInWithWhatItsScriptPrints(@TempDir Path dir) throws Exception {
        Path script = dir.resolve("issue-token.sh");
        Files.writeString(script, "#!/bin/sh\nprintf '%s\\n' '" + user.password() + "'\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        try (PgMuxDataSource ds = new PgMuxDataSource()) {
            ds.setJdbcUrl(db.jdbcUrl());
            ds.setUsername(user.name());
            ds.setPasswordCommand(script + " --hostname db --port 5432");
            ds.setPasswordCommandCacheTime(600_000);
            try (Connection c = ds.getConnection()) {
                assertEquals(user.name(), Sql.value(c, "SELECT current_user"));
            }
        }
    }

    @Test
    void refusesTwoCredentialSourcesAtOnceNamingBoth(@TempDir Path dir) {
        try (PgMuxDataSource ds = dataSource(new TestProvider())) {
            ds.setPasswordFile(dir.resolve("password").toString());
            SQLException e = assertThrows(SQLException.class, ds::getConnection);
            assertEquals("22023", e.getSQLState());
            assertTrue(e.getMessage().startsWith("credentialsProvider and passwordFile cannot be used together"),
                    e.getMessage());
        }
    }
}
