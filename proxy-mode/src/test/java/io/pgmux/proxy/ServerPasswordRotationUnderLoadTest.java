package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.proxy.config.IniFile;
import io.pgmux.testing.Await;
import io.pgmux.testing.PasswordMethod;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.SecretVolume;
import io.pgmux.testing.TestDatabase;
import io.pgmux.testing.TestUser;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A server password rotated while six pgjdbc clients run transactions through the proxy, whose entry logs in with
 * four server connections as a forced user whose password is read from a Kubernetes-style secret volume (by
 * server_password_file, or by server_password_command): the secret is swapped and the role's password altered,
 * the server connections logged in with the old password go on serving until the admin console's RECONNECT
 * renews them, and their replacements log in with the new secret, without one failed transaction and without a
 * RELOAD. The figures of the run are logged as the {@code ROTATION proxy:} line (docs/benchmarks.md, "Password
 * rotation under load"), never asserted.
 */
@PostgresTest
class ServerPasswordRotationUnderLoadTest {
    private static final String ADMIN = "boss";
    private static final String ADMIN_PASSWORD = "boss-secret";
    private static final int THREADS = 6;
    private static final int POOL_SIZE = 4;
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** How long the load runs before the rotation, between it and the renewal, and after the renewal. */
    private static final long PHASE_MILLIS = 1_500;

    private final TestDatabase db;
    private final LongAdder committed = new LongAdder();
    private final List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
    /** The backend pid each committed transaction ran on, with how many ran there. */
    private final Map<Integer, LongAdder> transactionsByBackend = new ConcurrentHashMap<>();
    /** The longest transaction, from its first statement to the end of commit(), in microseconds. */
    private final LongAccumulator slowestMicros = new LongAccumulator(Math::max, 0);
    private volatile boolean stop;

    ServerPasswordRotationUnderLoadTest(TestDatabase db) {
        this.db = db;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"server_password_file", "server_password_command"})
    void aServerPasswordRotatedUnderLoadCostsNoErrorAndNewServerConnectionsUseTheNewSecret(String key,
            @TempDir Path dir) throws Exception {
        TestUser user = db.createUser(PasswordMethod.SCRAM_SHA_256);
        SecretVolume volume = new SecretVolume(dir, Map.of("password", user.password()));
        String source = key.equals("server_password_file") ? " server_password_file=" + volume.file("password")
                : " server_password_command='cat " + volume.file("password") + "'";
        List<Thread> load = new ArrayList<>();
        try (PgMuxProxy proxy = start(user, source)) {
            for (int i = 0; i < THREADS; i++) {
                Thread t = new Thread(() -> runTransactions(proxy), "rotation-load-" + i);
                t.setDaemon(true);
                t.start();
                load.add(t);
            }
            Await.until(() -> backendsOf(user).size() == POOL_SIZE && committed.sum() >= 100, WAIT,
                    "the pool is full and the load runs");
            Thread.sleep(PHASE_MILLIS);
            long slowestBefore = slowestMicros.getThenReset();
            long beforeRotation = committed.sum();
            Set<Integer> oldBackends = backendsOf(user);

            String newPassword = user.password() + "-rotated";
            volume.update(Map.of("password", newPassword));
            alterPassword(user, newPassword);
            assertEquals("28P01", assertThrows(SQLException.class,
                    () -> db.connect(user.name(), user.password()).close()).getSQLState(),
                    "the old password is refused from now on");
            long atRotation = committed.sum();
            Await.until(() -> committed.sum() >= atRotation + 100, WAIT,
                    "the connections logged in with the old password go on serving");
            Thread.sleep(PHASE_MILLIS);
            assertEquals(oldBackends, backendsOf(user), "no server connection was replaced yet");
            long onOldAfterRotation = committed.sum() - atRotation;
            long slowestOnOld = slowestMicros.getThenReset();

            long renewedAt = System.nanoTime();
            try (Connection console = ProxyFixture.console(proxy, ADMIN, ADMIN_PASSWORD);
                 Statement st = console.createStatement()) {
                st.execute("RECONNECT " + db.name());
            }
            Await.until(() -> {
                Set<Integer> now = backendsOf(user);
                return now.size() == POOL_SIZE && Collections.disjoint(now, oldBackends);
            }, WAIT, "every server connection was replaced by one that logged in with the new secret");
            long renewalMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - renewedAt);
            long slowestDuringRenewal = slowestMicros.getThenReset();
            Set<Integer> newBackends = backendsOf(user);
            long atRenewal = committed.sum();
            Await.until(() -> committed.sum() >= atRenewal + 100, WAIT, "the load goes on over the new connections");
            Thread.sleep(PHASE_MILLIS);

            stop = true;
            for (Thread t : load) {
                t.join(TimeUnit.SECONDS.toMillis(30));
            }
            System.out.printf("ROTATION proxy (%s): %d clients, %d server connections; %d transactions before the"
                    + " rotation (slowest %d ms), %d on the old password's connections after it (slowest %d ms), all"
                    + " %d renewed %d ms after RECONNECT (slowest transaction meanwhile %d ms), %d after the renewal"
                    + " (slowest %d ms); %d failed%n", key, THREADS, POOL_SIZE, beforeRotation,
                    slowestBefore / 1000, onOldAfterRotation, slowestOnOld / 1000, POOL_SIZE, renewalMillis,
                    slowestDuringRenewal / 1000, committed.sum() - atRenewal, slowestMicros.get() / 1000,
                    errors.size());
            assertEquals(List.of(), errors, "no transaction failed");
            assertTrue(newBackends.stream().anyMatch(transactionsByBackend::containsKey),
                    "transactions ran on the connections of the new secret");
            assertTrue(oldBackends.stream().anyMatch(transactionsByBackend::containsKey),
                    "transactions ran on the connections of the old secret");
        } finally {
            stop = true;
        }
    }

    /** Transaction mode, four server connections for the forced user, opened before the first client. */
    private PgMuxProxy start(TestUser user, String source) {
        String ini = "[databases]\n" + db.name() + " = host=" + db.host() + " port=" + db.port() + " dbname="
                + db.name() + " user=" + user.name() + source + " pool_size=" + POOL_SIZE + " min_pool_size="
                + POOL_SIZE + "\n[pgbouncer]\npool_mode = transaction\nadmin_users = " + ADMIN + "\n";
        return ProxyConfigLoader.configure(IniFile.parse(ini), Path.of("."))
                .listen("127.0.0.1", 0)
                .users(Map.of(ProxyFixture.USER, ProxyFixture.PASSWORD, ADMIN, ADMIN_PASSWORD))
                .janitorPeriod(Duration.ofMillis(50))
                .drainTimeout(Duration.ofSeconds(2))
                .threads(2)
                .start();
    }

    /** One client connection, each transaction on whichever server the pool lends it. */
    private void runTransactions(PgMuxProxy proxy) {
        try (Connection c = ProxyFixture.connect(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD,
                new Properties())) {
            c.setAutoCommit(false);
            while (!stop) {
                long start = System.nanoTime();
                int pid;
                try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
                    rs.next();
                    pid = rs.getInt(1);
                }
                try (Statement st = c.createStatement()) {
                    st.execute("SELECT pg_sleep(0.002)");
                }
                c.commit();
                slowestMicros.accumulate(TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start));
                committed.increment();
                transactionsByBackend.computeIfAbsent(pid, p -> new LongAdder()).increment();
            }
        } catch (SQLException | RuntimeException e) {
            errors.add(e); // one error fails the test; a thread that went on would only repeat it
        }
    }

    private Set<Integer> backendsOf(TestUser user) throws SQLException {
        try (Connection admin = db.connect();
             PreparedStatement st = admin.prepareStatement(
                     "SELECT pid FROM pg_stat_activity WHERE usename = ? AND datname = current_database()")) {
            st.setString(1, user.name());
            Set<Integer> pids = new HashSet<>();
            try (ResultSet rs = st.executeQuery()) {
                while (rs.next()) {
                    pids.add(rs.getInt(1));
                }
            }
            return pids;
        }
    }

    private void alterPassword(TestUser user, String password) throws SQLException {
        try (Connection admin = db.connect(); Statement st = admin.createStatement()) {
            st.execute("SET password_encryption = 'scram-sha-256'");
            st.execute("ALTER ROLE " + user.name() + " PASSWORD '" + password + "'");
        }
    }
}
