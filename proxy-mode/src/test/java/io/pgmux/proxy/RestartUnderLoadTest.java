package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.Await;
import io.pgmux.testing.Clients;
import io.pgmux.testing.OutageWatch;
import io.pgmux.testing.PgbenchTables;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.Sql;
import io.pgmux.testing.TestDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A fast restart of the server (pg_ctl restart -m fast) under pgbench -c 32 through the proxy, with idle clients
 * and a prober beside it: idle clients see no error, pgbench's balances stay exact, and the time without service
 * and what pgbench lost are logged (docs/benchmarks.md, "Server restart under load"), never asserted. Short on
 * purpose: the test machine is shared.
 */
@PostgresTest
class RestartUnderLoadTest {
    private static final int PGBENCH_CLIENTS = 32;
    private static final int IDLE_CLIENTS = 8;
    private static final int POOL_SIZE = 20;
    private static final Pattern ABORTED = Pattern.compile("client \\d+ script \\d+ aborted");

    private final TestDatabase db;

    RestartUnderLoadTest(TestDatabase db) {
        this.db = db;
    }

    @Test
    void aFastRestartUnderPgbenchCostsIdleClientsNoErrorAndLosesNoMoney() throws Exception {
        String pgbench = Clients.executable("pgbench", "install the PostgreSQL client tools to run this test")
                .toString();
        PgbenchTables.initialize(db);
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.defaultPoolSize(POOL_SIZE)
                .queryWaitTimeout(Duration.ofSeconds(60)));
             OutageWatch watch = OutageWatch.start(() -> ProxyFixture.connect(proxy, db), IDLE_CLIENTS)) {
            String target = "host=127.0.0.1 port=" + proxy.port() + " dbname=" + db.name() + " user="
                    + ProxyFixture.USER + " password=" + ProxyFixture.PASSWORD + " sslmode=disable";
            Process load = new ProcessBuilder(pgbench, "-c", String.valueOf(PGBENCH_CLIENTS), "-j", "4", "-T", "10",
                    "-n", "-M", "simple", target).redirectErrorStream(true).start();
            awaitTransactions(100);
            watch.outageBegins();
            watch.runIdleClientsOnceRefusedBy(db);
            db.server().restart();
            watch.serverBack();
            OutageWatch.Report report = watch.report(60, TimeUnit.SECONDS);
            String output = finish(load);
            Matcher aborted = ABORTED.matcher(output);
            int abortedClients = 0;
            while (aborted.find()) {
                abortedClients++;
            }
            System.out.printf("RESTART proxy: restart %d ms, without service %d ms (%d ms after the server was back),"
                    + " %d idle clients served %d ms after the server was back with %d errors, prober errors %s,"
                    + " pgbench clients aborted %d of %d (in a transaction on a dying server)%n%s%n",
                    report.restartMillis(), report.withoutServiceMillis(), report.afterServerBackMillis(),
                    report.idleClients(), report.slowestIdleClientMillis(), report.idleClientErrors().size(),
                    report.proberErrors(), abortedClients, PGBENCH_CLIENTS, output.strip());
            assertEquals(List.of(), report.idleClientErrors(), "idle clients saw no error");
            assertTrue(abortedClients < PGBENCH_CLIENTS, "pgbench clients outside a transaction carried on");
        }
        PgbenchTables.assertBalancesExact(db);
    }

    /** Waits until pgbench has committed this many transactions: the restart hits a running load. */
    private void awaitTransactions(int count) throws Exception {
        try (Connection c = db.connect()) {
            Await.until(() -> Long.parseLong(Sql.value(c, "SELECT count(*) FROM pgbench_history")) >= count,
                    Duration.ofSeconds(60), "pgbench commits " + count + " transactions");
        }
    }

    private static String finish(Process process) throws IOException, InterruptedException {
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("pgbench did not finish");
        }
        return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
}
