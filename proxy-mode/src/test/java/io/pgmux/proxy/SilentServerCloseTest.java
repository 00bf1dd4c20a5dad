package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.Await;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.Sql;
import io.pgmux.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A server connection that closes without a word (no FATAL, no answer: a lost network path, a backend gone without
 * saying so) leaves unknown whether the request it was sent ran, so its client gets PgBouncer's "server conn
 * crashed?", unless all it sent was a BEGIN, whose one effect went with the server's session: that runs on another
 * server and the client sees no error. psycopg2, ORMs and pgbench send BEGIN alone, the first request a client sends
 * to a server it was just lent.
 */
@PostgresTest
class SilentServerCloseTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final TestDatabase db;
    private SilencingRelay relay;
    private PgMuxProxy proxy;

    SilentServerCloseTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void start() throws Exception {
        try (Connection c = db.connect(); Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS silent_rows");
            st.execute("CREATE TABLE silent_rows (n int)");
            st.execute("GRANT ALL ON silent_rows TO PUBLIC");
        }
        relay = new SilencingRelay(db.host(), db.port());
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.defaultPoolSize(1).database(db.name(),
                "postgresql://" + db.superuser() + ":" + db.superuserPassword() + "@127.0.0.1:" + relay.port() + "/"
                        + db.name()));
    }

    @AfterEach
    void stop() throws Exception {
        proxy.close();
        relay.close();
    }

    /** A client whose server connection is open and idle, lent to it again at its next request. */
    private RawClient client() throws Exception {
        RawClient client = RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD);
        client.query("SELECT 1");
        assertEquals("1", RawClient.firstColumn(client.readUntilReady()));
        return client;
    }

    /** Sends {@code sql}, waits until the relay has lost some of what was to pass, then cuts the connection. */
    private void sendThenCut(RawClient client, String sql, LongSupplier lost) throws Exception {
        client.query(sql);
        Await.until(() -> lost.getAsLong() > 0, WAIT, "the relay lost what passed");
        relay.cut();
    }

    @Test
    void aBeginTheServerNeverReadRunsOnAnotherServer() throws Exception {
        assertACutBeginRunsOnAnotherServer(relay::loseRequests, relay::lostRequestBytes);
    }

    @Test
    void aBeginTheServerRanWithoutAnAnswerRunsOnAnotherServer() throws Exception {
        assertACutBeginRunsOnAnotherServer(relay::loseAnswers, relay::lostAnswerBytes);
    }

    /**
     * A BEGIN sent once the relay began to {@code lose} what passes, cut once it has {@code lost} some: answered, and
     * its transaction runs.
     */
    private void assertACutBeginRunsOnAnotherServer(Runnable lose, LongSupplier lost) throws Exception {
        try (RawClient client = client()) {
            lose.run();
            sendThenCut(client, "BEGIN", lost);
            assertEquals("CZ", RawClient.types(client.readUntilReady()), "BEGIN's answer, from another server");
            insertAndCommit(client);
        }
        assertEquals("1", rows());
    }

    @Test
    void anInsertTheServerRanWithoutAnAnswerFailsItsClientAndRunsOnce() throws Exception {
        try (RawClient client = client()) {
            relay.loseAnswers();
            sendThenCut(client, "INSERT INTO silent_rows VALUES (1)", relay::lostAnswerBytes);
            List<RawClient.Message> answer = client.readUntilClosed();
            assertEquals("E", RawClient.types(answer));
            assertTrue(new String(answer.get(0).body(), StandardCharsets.UTF_8).contains("server conn crashed?"),
                    "PgBouncer's error for a server gone without a word");
        }
        assertEquals("1", rows(), "the insert ran once, on the server that did not answer");
    }

    private static void insertAndCommit(RawClient client) throws Exception {
        client.query("INSERT INTO silent_rows VALUES (1)");
        assertEquals("CZ", RawClient.types(client.readUntilReady()));
        client.query("COMMIT");
        assertEquals("CZ", RawClient.types(client.readUntilReady()));
    }

    private String rows() throws SQLException {
        try (Connection c = db.connect()) {
            return Sql.value(c, "SELECT count(*)::text FROM silent_rows");
        }
    }
}
