package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.pgmux.core.config.PoolMode;
import io.pgmux.core.pool.Pool;
import io.pgmux.proxy.admin.AdminConsole;
import io.pgmux.proxy.server.ServerConnection;
import io.pgmux.testing.Await;
import io.pgmux.testing.TestDatabase;
import io.pgmux.testing.PostgresTest;
import java.io.EOFException;
import java.io.IOException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Seeded garbage from clients in every state of a connection, against a real proxy on a real PostgreSQL: what comes
 * back is only well-formed messages whose errors carry a severity, a SQLSTATE and a text without a stack trace, nothing
 * after a FATAL one, or a close; input that leaves the proxy owing an answer gets one within the read timeout; no
 * fuzzed login succeeds; no server connection stays lent or unknown to its pool; the proxy's buffers come back; and a
 * bystander client on another pool runs its query loop throughout without one error. A failure names the state, the
 * case and the seed.
 * {@code -Dpgmux.fuzz.cases=N} runs N cases per state (default {@value #DEFAULT_CASES}), {@code -Dpgmux.fuzz.seed}
 * another seed.
 */
@PostgresTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClientProtocolFuzzTest {
    private static final int DEFAULT_CASES = 150;
    private static final int CASES = Integer.getInteger("pgmux.fuzz.cases", DEFAULT_CASES);
    private static final long SEED = Long.getLong("pgmux.fuzz.seed", 0xF0_22_C1_1EL);
    /** Each read of a case waits this long before the case counts as a hang. */
    private static final int READ_TIMEOUT_MILLIS = 5_000;
    private static final String BYSTANDER = "bystander";
    private static final int POOL_SIZE = 2;
    private static final String SCRAM_USER = "scram";
    private static final String STATS_USER = "stats";
    private static final String STATS_PASSWORD = "stats-secret";
    /** The pencil verifier of PostgreSQL's SCRAM tests: a login against it is SCRAM-SHA-256 under auth_type md5. */
    private static final String PENCIL_VERIFIER = "SCRAM-SHA-256$4096:B4obYDcjdxbrFHOrndIQxQ==$"
            + "fBS6UeGAJJV+pBHrxdo7IhmfoHX/VQZeCGiF28uv5F0=:sWmPdUv/vXQXHctlbKrjfkewujpaseVolNPcD+l7Rv0=";
    private static final String PROBE_MARKER = "fuzz-probe";
    /** Ends a COPY IN, a failed batch and a transaction, then asks for a marked row. */
    private static final byte[] PROBE = RawClient.concat(RawClient.frame('f', RawClient.cstring("fuzz")),
            RawClient.frame('S', new byte[0]),
            RawClient.frame('Q', RawClient.cstring("ROLLBACK; SELECT '" + PROBE_MARKER + "'")));
    private static final byte[] CONSOLE_PROBE = RawClient.concat(RawClient.frame('S', new byte[0]),
            RawClient.frame('Q', RawClient.cstring("SHOW VERSION")));
    private static final byte[] TERMINATE = RawClient.frame('X', new byte[0]);
    private static final Pattern SQLSTATE = Pattern.compile("[0-9A-Z]{5}");
    private static final String SERVER_CLOSED = "server conn crashed?";
    private static final Pattern STACK_TRACE = Pattern.compile(
            "Exception|\\tat |java\\.|javax\\.|io\\.netty|io\\.pgmux|\\.java:\\d");
    /** What pooled arenas may keep beyond their start: a few chunks, far below what buffered input would take. */
    private static final long DIRECT_MEMORY_BOUND = 64L * 1024 * 1024;

    /** Where a case's input starts; the likelier message types of each. */
    enum State {
        STARTUP(""),
        LOGIN_MD5("p"),
        LOGIN_SCRAM("p"),
        IDLE("QPBES"),
        TRANSACTION("QPBES"),
        FAILED_TRANSACTION("QS"),
        COPY_IN("dcf"),
        COPY_OUT("dcfQ"),
        PIPELINE("BEDCHS"),
        /** Every server of the pool is lent to another client while the case's input arrives, and freed after it. */
        WAITING("QPBES"),
        CONSOLE("Q");

        final String types;

        State(String types) {
            this.types = types;
        }
    }

    private final TestDatabase db;
    private PgMuxProxy proxy;
    private Thread bystander;
    private volatile boolean stopping;
    private final AtomicLong bystanderQueries = new AtomicLong();
    private final AtomicReference<SQLException> bystanderError = new AtomicReference<>();

    ClientProtocolFuzzTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeAll
    void start() throws Exception {
        try (Connection direct = db.connect(); Statement s = direct.createStatement()) {
            s.execute("CREATE TABLE fuzz_t (a int)");
        }
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b
                .database(BYSTANDER, ProxyFixture.serverUrl(db))
                .defaultPoolSize(POOL_SIZE)
                .users(Map.of(ProxyFixture.USER, ProxyFixture.PASSWORD, SCRAM_USER, PENCIL_VERIFIER,
                        STATS_USER, STATS_PASSWORD))
                .statsUsers(STATS_USER));
        // the fuzzed clients' pool exists from its first client on
        try (RawClient first = RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD)) {
            first.query("SELECT 1");
            first.readUntilReady();
        }
        Connection connection = ProxyFixture.connect(proxy, BYSTANDER, ProxyFixture.USER, ProxyFixture.PASSWORD,
                new Properties());
        bystander = new Thread(() -> queryLoop(connection), "fuzz-bystander");
        bystander.start();
    }

    private void queryLoop(Connection connection) {
        try (connection; Statement s = connection.createStatement()) {
            while (!stopping) {
                try (ResultSet rs = s.executeQuery("SELECT 1")) {
                    rs.next();
                }
                bystanderQueries.incrementAndGet();
                // a pause leaves the two cores to the cases, and many queries still fall among them
                Thread.sleep(1);
            }
        } catch (SQLException e) {
            bystanderError.set(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @AfterAll
    void stop() throws Exception {
        stopping = true;
        bystander.join(30_000);
        proxy.close();
        SQLException error = bystanderError.get();
        if (error != null) {
            throw new AssertionError("the bystander's query loop failed after " + bystanderQueries.get()
                    + " queries: " + error.getSQLState() + " " + error.getMessage(), error);
        }
        assertTrue(bystanderQueries.get() > 0, "the bystander ran no query");
    }

    @ParameterizedTest
    @EnumSource(State.class)
    void fuzzedClientInputGetsOnlyClearErrorsAndLeavesNothingBehind(State state) throws Exception {
        Pool<ServerConnection> pool = ProxyFixture.pool(proxy, db);
        long directBefore = usedDirectMemory();
        FrontendFuzz fuzz = new FrontendFuzz(SEED + state.ordinal());
        List<RawClient> holders = new ArrayList<>();
        try {
            for (int i = 0; state == State.WAITING && i < POOL_SIZE; i++) {
                holders.add(RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD));
            }
            for (int i = 0; i < CASES; i++) {
                String where = state + " case " + i + " (seed " + SEED + ")";
                try {
                    runCase(state, fuzz, holders, where);
                } catch (IOException e) {
                    throw new AssertionError(where + ": " + e, e);
                }
                assertEquals(0, ProxyFixture.awaitActive(pool, 0), where + ": a server connection is still lent");
                assertServesANewClient(where);
            }
        } finally {
            for (RawClient holder : holders) {
                holder.close();
            }
        }
        assertNull(bystanderError.get(), "the bystander's query loop failed");
        Pool<ServerConnection> bystanderPool = ProxyFixture.existingPool(proxy, BYSTANDER, db.superuser());
        // every backend of the database is a server connection one of the two pools knows
        Await.until(() -> db.countConnections() == pool.getTotalConnections() + bystanderPool.getTotalConnections(),
                Duration.ofSeconds(10), "backends of " + db.name() + " that are the pools' server connections");
        Await.until(() -> pool.view().activeClients() + pool.view().waitingClients() == 0, Duration.ofSeconds(10),
                "the fuzzed clients gone from SHOW POOLS");
        long grown = usedDirectMemory() - directBefore;
        assertTrue(grown < DIRECT_MEMORY_BOUND, "direct memory grew by " + grown + " bytes over the cases");
    }

    private void runCase(State state, FrontendFuzz fuzz, List<RawClient> holders, String where)
            throws IOException {
        List<RawClient.Message> seen = new ArrayList<>();
        try (RawClient c = new RawClient(proxy.port())) {
            c.readTimeout(READ_TIMEOUT_MILLIS);
            byte[] input;
            boolean probed = true;
            switch (state) {
                case STARTUP -> {
                    input = fuzz.startupPackets(db.name());
                    probed = false;
                }
                case LOGIN_MD5, LOGIN_SCRAM -> {
                    c.startup(Map.of("user", state == State.LOGIN_MD5 ? ProxyFixture.USER : SCRAM_USER,
                            "database", db.name()));
                    RawClient.Message request = c.read();
                    assertEquals('R', request.type(), where);
                    input = fuzz.messages(state.types);
                    probed = false;
                }
                case CONSOLE -> {
                    c.login("pgbouncer", STATS_USER, STATS_PASSWORD);
                    input = fuzz.messages(state.types);
                }
                default -> {
                    c.login(db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD);
                    enter(state, c);
                    input = fuzz.messages(state.types);
                }
            }
            for (RawClient holder : holders) {
                holder.query("BEGIN");
                holder.readUntilReady();
            }
            boolean open = send(c, input);
            boolean probing = open && probed && fuzz.framed();
            if (open && !probing) {
                try {
                    c.shutdownOutput();
                } catch (SocketException closed) {
                    // the proxy closed first: what it sent is still to be read
                }
            }
            for (RawClient holder : holders) {
                holder.query("COMMIT");
                holder.readUntilReady();
            }
            if (probing && send(c, state == State.CONSOLE ? CONSOLE_PROBE : PROBE)
                    && readUntilProbe(c, seen, state == State.CONSOLE ? AdminConsole.PGBOUNCER_VERSION : PROBE_MARKER,
                            where)) {
                send(c, TERMINATE);
            }
            readUntilClosed(c, seen, where);
        }
        check(state, seen, where);
    }

    /** A console login needs no server: it fails only when the proxy's event loops stopped serving. */
    private void assertServesANewClient(String where) {
        try (RawClient next = new RawClient(proxy.port())) {
            next.readTimeout(READ_TIMEOUT_MILLIS);
            next.login("pgbouncer", STATS_USER, STATS_PASSWORD);
        } catch (IOException e) {
            throw new AssertionError(where + ": the next client was not served", e);
        }
    }

    /** Takes a logged-in client to the state its cases start from. */
    private static void enter(State state, RawClient c) throws IOException {
        switch (state) {
            case TRANSACTION -> {
                c.query("BEGIN");
                c.readUntilReady();
            }
            case FAILED_TRANSACTION -> {
                c.query("BEGIN; SELECT 1/0");
                c.readUntilReady();
            }
            case COPY_IN -> {
                c.query("COPY fuzz_t FROM STDIN");
                RawClient.Message m;
                do {
                    m = c.read();
                } while (m.type() != 'G');
            }
            case COPY_OUT -> c.query("COPY (SELECT g FROM generate_series(1, 3000) g) TO STDOUT");
            case PIPELINE -> {
                c.parse("fz", "SELECT 1");
                c.bind("fz");
                c.execute();
            }
            default -> {
            }
        }
    }

    /** Writes; false when the proxy has closed the connection already. */
    private static boolean send(RawClient c, byte[] bytes) {
        try {
            c.sendRaw(bytes);
            return true;
        } catch (IOException closed) {
            return false;
        }
    }

    /** Reads up to the ReadyForQuery after the row holding {@code marker}; false when the proxy closed first. */
    private static boolean readUntilProbe(RawClient c, List<RawClient.Message> seen, String marker, String where)
            throws IOException {
        boolean marked = false;
        while (true) {
            RawClient.Message m = next(c, seen, where);
            if (m == null) {
                return false;
            }
            if (m.type() == 'D' && new String(m.body(), StandardCharsets.ISO_8859_1).contains(marker)) {
                marked = true;
            } else if (m.type() == 'Z' && marked) {
                return true;
            }
        }
    }

    private static void readUntilClosed(RawClient c, List<RawClient.Message> seen, String where) throws IOException {
        while (next(c, seen, where) != null) {
            // everything the proxy sends before it closes is checked
        }
    }

    /** The next message, or null at the close; a read that times out is a hang. */
    private static RawClient.Message next(RawClient c, List<RawClient.Message> seen, String where)
            throws IOException {
        try {
            RawClient.Message m = c.read();
            seen.add(m);
            return m;
        } catch (EOFException e) {
            return null;
        } catch (SocketTimeoutException e) {
            throw new AssertionError(where + ": no answer and no close within " + READ_TIMEOUT_MILLIS + " ms after "
                    + RawClient.types(seen), e);
        } catch (SocketException e) {
            if (e.getMessage() != null && e.getMessage().contains("reset")) {
                return null;
            }
            throw e;
        } catch (NegativeArraySizeException e) {
            throw new AssertionError(where + ": a message with a length below 4 after " + RawClient.types(seen), e);
        }
    }

    /**
     * Only well-formed errors and notices; nothing after a FATAL but, when it was the server's, PgBouncer's own for
     * the server that closed; and never the success of a fuzzed login.
     */
    private static void check(State state, List<RawClient.Message> seen, String where) {
        boolean ended = false;
        for (RawClient.Message m : seen) {
            if (m.type() == 'E' || m.type() == 'N') {
                checkFields(m, where);
            }
            boolean fatal = m.type() == 'E' && "FATAL".equals(m.field('S'));
            if (ended && !(fatal && SERVER_CLOSED.equals(m.field('M')))) {
                fail(where + ": " + m.type() + " after a FATAL error: " + RawClient.types(seen));
            }
            ended |= fatal;
            if ((state == State.STARTUP || state == State.LOGIN_MD5 || state == State.LOGIN_SCRAM)
                    && m.type() == 'R' && Arrays.equals(m.body(), new byte[4])) {
                fail(where + ": a fuzzed login was accepted");
            }
        }
    }

    private static void checkFields(RawClient.Message m, String where) {
        byte[] body = m.body();
        String severity = null;
        String sqlState = null;
        String text = null;
        int i = 0;
        while (i < body.length && body[i] != 0) {
            int end = i + 1;
            while (end < body.length && body[end] != 0) {
                end++;
            }
            assertTrue(end < body.length, where + ": a field without its terminator in " + m.type());
            String value = new String(body, i + 1, end - i - 1, StandardCharsets.UTF_8);
            assertTrue(!STACK_TRACE.matcher(value).find(), where + ": a stack trace in field " + (char) body[i]
                    + ": " + value);
            switch (body[i]) {
                case 'S' -> severity = value;
                case 'C' -> sqlState = value;
                case 'M' -> text = value;
                default -> {
                }
            }
            i = end + 1;
        }
        assertTrue(i == body.length - 1, where + ": " + m.type() + " does not end after its fields");
        assertTrue(severity != null && !severity.isEmpty(), where + ": no severity in " + m.type());
        assertTrue(sqlState != null && SQLSTATE.matcher(sqlState).matches(),
                where + ": SQLSTATE " + sqlState + " of " + text);
        assertTrue(text != null && !text.isEmpty(), where + ": no message text");
    }

    private static long usedDirectMemory() {
        return ((ByteBufAllocatorMetricProvider) ByteBufAllocator.DEFAULT).metric().usedDirectMemory();
    }
}
