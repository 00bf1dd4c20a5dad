package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code replication} in the startup packet (issue 29, item 11): pgmux serves no replication connection yet, so a
 * client asking for a walsender is refused at login with PgBouncer's FATAL for a pooler that serves none, instead
 * of getting an ordinary session; {@code replication=false} is an ordinary session.
 */
@PostgresTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReplicationStartupTest {
    private final TestDatabase db;
    private PgMuxProxy proxy;

    ReplicationStartupTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeAll
    void start() {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION);
    }

    @AfterAll
    void stop() {
        proxy.close();
    }

    private String psqlUrl(String replication) {
        return "host=127.0.0.1 port=" + proxy.port() + " dbname=" + db.name() + " user=" + ProxyFixture.USER
                + " password=" + ProxyFixture.PASSWORD + " replication=" + replication;
    }

    private List<RawClient.Message> rawLogin(String replication) throws Exception {
        try (RawClient c = new RawClient(proxy.port())) {
            c.startup(Map.of("user", ProxyFixture.USER, "database", db.name(), "replication", replication));
            return c.readUntilClosed();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"database", "true", "on", "1", "yes"})
    void aWalsenderAskedForIsRefusedAtLoginAsUnsupported(String replication) throws Exception {
        List<RawClient.Message> answer = rawLogin(replication);
        RawClient.Message error = answer.get(answer.size() - 1);
        assertEquals('E', error.type(), RawClient.types(answer));
        assertEquals("FATAL", error.field('S'));
        assertEquals("08P01", error.field('C'));
        assertEquals("unsupported startup parameter: replication", error.field('M'));
    }

    @Test
    void psqlAskingForALogicalReplicationConnectionGetsTheFatalBeforeAnyQuery() throws Exception {
        Psql.Result psql = Psql.run(psqlUrl("database"), "IDENTIFY_SYSTEM");
        assertFalse(psql.succeeded(), psql.output());
        assertTrue(psql.output().contains("FATAL:  unsupported startup parameter: replication"), psql.output());
    }

    @Test
    void pgjdbcAskingForAPhysicalReplicationConnectionGetsTheSqlState() {
        Properties p = new Properties();
        p.setProperty("replication", "true");
        p.setProperty("assumeMinServerVersion", "9.4");
        p.setProperty("preferQueryMode", "simple");
        SQLException e = assertThrows(SQLException.class,
                () -> ProxyFixture.connect(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD, p).close());
        assertEquals("08P01", e.getSQLState());
        assertTrue(e.getMessage().contains("unsupported startup parameter: replication"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"false", "off", "0", "no"})
    void replicationFalseIsAnOrdinarySession(String replication) throws Exception {
        Psql.Result psql = Psql.run(psqlUrl(replication), "SELECT 'ordinary'");
        assertTrue(psql.succeeded(), psql.output());
        assertEquals("ordinary", psql.output().strip());
    }

    @Test
    void aValueNeitherBooleanNorDatabaseGetsPostgresqlsRefusal() throws Exception {
        List<RawClient.Message> answer = rawLogin("maybe");
        RawClient.Message error = answer.get(answer.size() - 1);
        assertEquals("22023", error.field('C'));
        assertEquals("invalid value for parameter \"replication\": \"maybe\"", error.field('M'));
    }

    @Test
    void pgjdbcWithReplicationFalseQueries() throws Exception {
        Properties p = new Properties();
        p.setProperty("replication", "false");
        try (Connection c = ProxyFixture.connect(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD, p);
                Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 1")) {
            assertTrue(rs.next());
        }
    }
}
