package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.util.ResourceLeakDetector;
import io.pgmux.core.config.PoolMode;
import io.pgmux.proxy.client.PinCounts;
import io.pgmux.testing.TestDatabase;
import io.pgmux.proxy.auth.AuthType;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What every real client library must be able to do through the proxy, in each pool mode. A subclass names the
 * library's script; all the scenarios of one pool mode run in one process of it, against one proxy in that mode
 * (SCRAM-SHA-256 logins, a pool of {@value #POOL_SIZE} server connections), and each test checks what one
 * scenario reported.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class RealClientTest {
    static final int POOL_SIZE = 3;

    private final TestDatabase db;
    private final ClientScript script;
    private final Map<PoolMode, PgMuxProxy> proxies = new EnumMap<>(PoolMode.class);
    private final Map<PoolMode, ClientReport> reports = new EnumMap<>(PoolMode.class);
    private PgMuxProxy md5Proxy;
    private ResourceLeakDetector.Level leakDetection;

    RealClientTest(TestDatabase db, ClientScript script) {
        this.db = db;
        this.script = script;
    }

    /**
     * The module tests with paranoid leak detection, which records every buffer: over the hundreds of thousands
     * of messages these clients exchange, sampling still catches a leak, in a tenth of the time.
     */
    @BeforeAll
    void sampleLeakDetection() {
        leakDetection = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.SIMPLE);
    }

    /** What the scenario reported in that pool mode (the mode's scenarios all run at its first call). */
    String facts(PoolMode mode, String scenario) {
        return reports.computeIfAbsent(mode, m -> script.run(proxy(m), db.name(), m)).facts(scenario);
    }

    /** How often the clients of that pool mode's proxy were pinned, by reason. */
    PinCounts pinCounts(PoolMode mode) {
        return proxy(mode).pinCounts(db.name(), db.superuser());
    }

    PgMuxProxy proxy(PoolMode mode) {
        return proxies.computeIfAbsent(mode, m -> ProxyFixture.start(db, m, b -> b
                .authType(AuthType.SCRAM_SHA_256)
                .defaultPoolSize(POOL_SIZE)
                .queryWaitTimeout(Duration.ofSeconds(30))));
    }

    @AfterAll
    void stopProxies() {
        proxies.values().forEach(PgMuxProxy::close);
        if (md5Proxy != null) {
            md5Proxy.close();
        }
        ResourceLeakDetector.setLevel(leakDetection);
    }

    /** The client logs in to the proxy as the fixture's user; the server connection runs as the fixture's superuser. */
    @ParameterizedTest
    @EnumSource(PoolMode.class)
    void logsInWithScramSha256(PoolMode mode) {
        assertEquals("user=" + db.superuser(), facts(mode, "login"));
    }

    @Test
    void logsInWithMd5() {
        md5Proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.authType(AuthType.MD5));
        ClientReport report = script.run(md5Proxy, db.name(), PoolMode.TRANSACTION, "login");
        assertEquals("user=" + db.superuser(), report.facts("login"));
    }

    /** PgBouncer's texts: "SASL authentication failed" for SCRAM, "password authentication failed" for md5. */
    @ParameterizedTest
    @EnumSource(PoolMode.class)
    void wrongPasswordIsRefused(PoolMode mode) {
        String facts = facts(mode, "wrong_password");
        assertTrue(facts.startsWith("refused: ") && facts.contains("SASL authentication failed"), facts);
    }

    @ParameterizedTest
    @EnumSource(PoolMode.class)
    void simpleQueriesReturnTheirResults(PoolMode mode) {
        assertEquals("results=2,two", facts(mode, "simple_query"));
    }

    @ParameterizedTest
    @EnumSource(PoolMode.class)
    void syntaxErrorReports42601AndTheConnectionStaysUsable(PoolMode mode) {
        assertEquals("sqlstate=42601 after=1", facts(mode, "syntax_error"));
    }

    /** Rows 1 and 3 commit; 2 is rolled back, 4 with its savepoint, 5 with the transaction that failed. */
    @ParameterizedTest
    @EnumSource(value = PoolMode.class, names = {"SESSION", "TRANSACTION"})
    void transactionsCommitRollBackAndRecoverFromErrors(PoolMode mode) {
        assertEquals("ids=1,3 savepoint_error=22012 in_failed=25P02", facts(mode, "transactions"));
    }

    @ParameterizedTest
    @EnumSource(PoolMode.class)
    void largeResultArrivesWhole(PoolMode mode) {
        assertEquals("rows=100000 sum=5000050000", facts(mode, "large_result"));
    }

    /** 20 clients over 3 server connections, each checking it sees its own rows and settings only. */
    @ParameterizedTest
    @EnumSource(PoolMode.class)
    void concurrentClientsShareFewServerConnectionsWithoutCrossTalk(PoolMode mode) {
        assertEquals("workers=20 rows=200 distinct=200", facts(mode, "concurrency"));
    }

    /** In transaction and statement mode the listener keeps its server while it listens (pin_session_state). */
    @ParameterizedTest
    @EnumSource(PoolMode.class)
    void notificationReachesAListener(PoolMode mode) {
        assertEquals("channel=pgmux_channel payload=hello", facts(mode, "notify"));
    }
}
