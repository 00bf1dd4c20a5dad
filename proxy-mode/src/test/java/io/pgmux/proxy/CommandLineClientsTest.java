package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.proxy.client.PinCounts;
import io.pgmux.core.pool.PinReason;
import io.pgmux.testing.Clients;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** libpq's own clients, psql and pgbench, through the proxy in transaction mode. */
@PostgresTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CommandLineClientsTest {
    private final TestDatabase db;
    private PgMuxProxy proxy;
    private boolean initialized;

    CommandLineClientsTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeAll
    void start() {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.defaultPoolSize(4));
    }

    @AfterAll
    void stop() {
        proxy.close();
    }

    @Test
    void psqlRunsACommand() throws Exception {
        Result result = run(List.of(tool("psql"), "-X", "-A", "-t", "-c", "SELECT 6 * 7", connectionString()));
        assertEquals(0, result.exitCode, result.output);
        assertEquals("42", result.output.strip());
    }

    /** Each -c is a transaction of its own: the temporary table keeps psql on its server until it is dropped. */
    @Test
    void psqlKeepsItsTemporaryTableAcrossTransactions() throws Exception {
        PinCounts pins = proxy.pinCounts(db.name(), db.superuser());
        long before = pins.pinsTotal(PinReason.TEMPORARY_OBJECT);
        Result result = run(List.of(tool("psql"), "-X", "-A", "-t", "-q",
                "-c", "CREATE TEMP TABLE psql_temp (x int)", "-c", "INSERT INTO psql_temp VALUES (1), (2)",
                "-c", "SELECT sum(x) FROM psql_temp", connectionString()));
        assertEquals(0, result.exitCode, result.output);
        assertEquals("3", result.output.strip());
        assertEquals(before + 1, pins.pinsTotal(PinReason.TEMPORARY_OBJECT));
        assertEquals(0, ProxyFixture.awaitActive(ProxyFixture.pool(proxy, db), 0), "psql left: its server went back");
    }

    @ParameterizedTest
    @ValueSource(strings = {"simple", "extended", "prepared"})
    void pgbenchKeepsTheTpcbBalancesConsistent(String queryMode) throws Exception {
        String pgbench = initializedPgbench();
        // One thread per client: pgbench prepares synchronously on first use, and a thread blocked there for a
        // server while its other clients hold the servers in open transactions would wait forever (8 > pool 4).
        Result bench = run(List.of(pgbench, "-c", "8", "-j", "8", "-T", "5", "-M", queryMode, "-n",
                connectionString()));
        assertEquals(0, bench.exitCode, bench.output);
        try (Connection c = db.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT (SELECT sum(abalance) FROM pgbench_accounts),"
                     + " (SELECT sum(tbalance) FROM pgbench_tellers), (SELECT sum(bbalance) FROM pgbench_branches),"
                     + " (SELECT sum(delta) FROM pgbench_history), (SELECT count(*) FROM pgbench_history)")) {
            rs.next();
            long accounts = rs.getLong(1);
            assertEquals(accounts, rs.getLong(2), "sum(tbalance)");
            assertEquals(accounts, rs.getLong(3), "sum(bbalance)");
            assertEquals(accounts, rs.getLong(4), "sum(delta)");
            org.junit.jupiter.api.Assertions.assertTrue(rs.getLong(5) > 0, "pgbench ran no transaction");
        }
        assertEquals(0, ProxyFixture.awaitActive(ProxyFixture.pool(proxy, db), 0));
    }

    /**
     * As many clients as servers, on two event loops: a client mostly finds a server idle and links to it at
     * once, also one that a client on the other loop has just released and not yet finished unlinking.
     */
    @Test
    void pgbenchSelectOnlyCompletesEveryTransactionWithoutWaitingForServers() throws Exception {
        String pgbench = initializedPgbench();
        Result bench = run(List.of(pgbench, "-S", "-c", "4", "-j", "2", "-t", "2000", "-n", connectionString()));
        assertEquals(0, bench.exitCode, bench.output);
        assertTrue(bench.output.contains("number of transactions actually processed: 8000/8000"), bench.output);
    }

    private String initializedPgbench() throws IOException, InterruptedException {
        String pgbench = tool("pgbench");
        if (!initialized) {
            Result init = run(List.of(pgbench, "-i", "-s", "1", "-q", connectionString()));
            assertEquals(0, init.exitCode, init.output);
            initialized = true;
        }
        return pgbench;
    }

    private String connectionString() {
        return "host=127.0.0.1 port=" + proxy.port() + " dbname=" + db.name() + " user=" + ProxyFixture.USER
                + " password=" + ProxyFixture.PASSWORD + " sslmode=disable";
    }

    private static String tool(String name) {
        return Clients.executable(name, "install the PostgreSQL client tools to run this test").toString();
    }

    private record Result(int exitCode, String output) {
    }

    private static Result run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(new ArrayList<>(command)).redirectErrorStream(true).start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("timed out: " + command);
        }
        return new Result(process.exitValue(), new String(process.getInputStream().readAllBytes(),
                StandardCharsets.UTF_8));
    }
}
