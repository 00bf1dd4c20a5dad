package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.proxy.config.IniFile;
import io.pgmux.testing.OutageWatch;
import io.pgmux.testing.StandbyPair;
import io.pgmux.testing.TransactionLoad;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The failover budget of the proxy: 50 pgjdbc clients run short transactions through a transaction-mode pool
 * whose [databases] entry lists a primary and its streaming standby with target_session_attrs=read-write; the
 * primary stops (fast) and the standby is promoted. The only transactions allowed to fail are those running on the
 * dying primary after their first statement was answered, at most one per server connection; none fails at its
 * first statement, idle clients see no error, and every acknowledged commit is on the promoted standby once.
 * docs/testing.md, "Budgets under load"; the long run with its figures is jmh's FailoverBenchmarkTest
 * (docs/benchmarks.md).
 */
class FailoverUnderLoadTest {
    private static final int CLIENTS = 50;
    private static final int POOL_SIZE = 10;
    private static final int IDLE_CLIENTS = 5;
    private static final Duration THINK = Duration.ofMillis(10);
    /** How long the load runs before the primary stops: the failover hits a pool whose servers are all busy. */
    private static final Duration LOAD_BEFORE_FAILOVER = Duration.ofSeconds(4);
    /**
     * How long no server is primary, between the old one's stop and the standby's promotion, as while an operator
     * or a failover manager decides: the clients that want a server meanwhile must wait, not fail.
     */
    private static final Duration WITHOUT_PRIMARY = Duration.ofSeconds(2);
    /** How long the load runs on after the promotion: a lockout after it would fail transactions meanwhile. */
    private static final Duration LOAD_AFTER_PROMOTION = Duration.ofSeconds(8);
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** The floor: a transaction in flight on each server connection of the dying primary, and nothing else. */
    private static final int MAX_FAILED_TRANSACTIONS_PER_FAILOVER = POOL_SIZE;

    @Test
    void aFailoverUnderLoadFailsOnlyTransactionsInFlightOnTheDyingPrimaryAndLosesNoCommit() throws Exception {
        try (StandbyPair pair = StandbyPair.start()) {
            pair.executeOnPrimary(TransactionLoad.SCHEMA.toArray(String[]::new));
            pair.awaitStandbyCaughtUp();
            // server_login_retry and the other settings at their defaults, as an operator would leave them
            String ini = "[databases]\napp = host=" + pair.host() + "," + pair.host() + " port=" + pair.primaryPort()
                    + "," + pair.standbyPort() + " dbname=postgres user=" + pair.superuser()
                    + " target_session_attrs=read-write\n[pgbouncer]\npool_mode = transaction\ndefault_pool_size = "
                    + POOL_SIZE + "\nmax_client_conn = " + (CLIENTS + IDLE_CLIENTS + 10) + "\n";
            TransactionLoad.Result result;
            OutageWatch.Report report;
            try (PgMuxProxy proxy = ProxyConfigLoader.configure(IniFile.parse(ini), Path.of("."))
                    .listen("127.0.0.1", 0).users(Map.of(ProxyFixture.USER, ProxyFixture.PASSWORD)).start()) {
                OutageWatch.ConnectionSource client = () -> ProxyFixture.connect(proxy, "app", ProxyFixture.USER,
                        ProxyFixture.PASSWORD, new Properties());
                try (OutageWatch watch = OutageWatch.start(client, IDLE_CLIENTS);
                     TransactionLoad load = TransactionLoad.start(client, CLIENTS, THINK)) {
                    load.awaitMoreCommits(200, WAIT);
                    Thread.sleep(LOAD_BEFORE_FAILOVER.toMillis());
                    watch.outageBegins();
                    watch.runIdleClientsOnceRefusedBy(() -> pair.connect(pair.primaryPort(), "postgres"));
                    pair.stopPrimary();
                    Thread.sleep(WITHOUT_PRIMARY.toMillis());
                    pair.promoteStandby();
                    watch.serverBack();
                    load.awaitMoreCommits(200, WAIT);
                    Thread.sleep(LOAD_AFTER_PROMOTION.toMillis());
                    report = watch.report(WAIT.toSeconds(), TimeUnit.SECONDS);
                    result = load.stop();
                }
            }
            TransactionLoad.Ledger ledger;
            try (Connection c = pair.connect(pair.standbyPort(), "postgres")) {
                ledger = result.check(c);
            }
            System.out.printf("FAILOVER proxy: %d commits, %d failed transactions (budget %d), idle clients served "
                    + "%d ms after the promotion; failed %s%n", result.commits(), result.failures().size(),
                    MAX_FAILED_TRANSACTIONS_PER_FAILOVER, report.slowestIdleClientMillis(),
                    TransactionLoad.describe(result.failures()));
            assertAll(
                    () -> assertTrue(result.failures().size() <= MAX_FAILED_TRANSACTIONS_PER_FAILOVER,
                            "at most " + MAX_FAILED_TRANSACTIONS_PER_FAILOVER + " transactions fail, one per server "
                                    + "connection of the dying primary; failed "
                                    + TransactionLoad.describe(result.failures())),
                    () -> assertTrue(result.failuresBeforeAnAnswer().isEmpty(), "no transaction fails before its "
                            + "first statement was answered; failed " + TransactionLoad.describe(
                                    result.failuresBeforeAnAnswer())),
                    () -> assertEquals(List.of(), report.idleClientErrors(), "idle clients saw no error"),
                    () -> assertEquals(List.of(), ledger.lost(), "acknowledged commits missing"),
                    () -> assertEquals(List.of(), ledger.doubled(), "transactions recorded twice"),
                    () -> assertTrue(ledger.balancesMatch(), "the balances add up to the history"));
        }
    }
}
