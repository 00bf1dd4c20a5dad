package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;

/**
 * PgBouncer's disable_pqexec: a client sending a simple-protocol Query is closed with {@code PQexec disallowed};
 * the extended protocol keeps working.
 */
@PostgresTest
class DisablePqexecTest {
    private final TestDatabase db;
    private PgMuxProxy proxy;

    DisablePqexecTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void start() {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.set("disable_pqexec", "1"));
    }

    @AfterEach
    void stop() {
        proxy.close();
    }

    @Test
    void theExtendedProtocolWorks() throws Exception {
        try (Connection c = connect(new Properties());
             PreparedStatement s = c.prepareStatement("SELECT ?::int + 1")) {
            s.setInt(1, 41);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                assertEquals(42, rs.getInt(1));
            }
        }
    }

    @Test
    void aSimpleQueryFromPgjdbcClosesTheClientWithPgBouncersError() throws Exception {
        Properties simple = new Properties();
        simple.setProperty("preferQueryMode", "simple");
        try (Connection c = connect(simple)) {
            PSQLException e = assertThrows(PSQLException.class, () -> c.createStatement().execute("SELECT 1"));
            assertEquals("08P01", e.getSQLState());
            assertEquals("PQexec disallowed", e.getServerErrorMessage().getMessage());
            assertTrue(c.isClosed() || !c.isValid(5));
        }
    }

    @Test
    void psqlsQueryIsRefusedWithPgBouncersError() throws Exception {
        Psql.Result psql = Psql.run("postgresql://" + ProxyFixture.USER + ":" + ProxyFixture.PASSWORD + "@127.0.0.1:"
                + proxy.port() + "/" + db.name() + "?sslmode=disable", "SELECT 1");
        assertFalse(psql.succeeded(), psql.output());
        assertTrue(psql.output().contains("FATAL:  PQexec disallowed"), psql.output());
    }

    /**
     * pgjdbc sets extra_float_digits with a simple Query at connect unless it may assume a server of 9.0 or later,
     * as with PgBouncer.
     */
    private Connection connect(Properties extra) throws Exception {
        extra.setProperty("assumeMinServerVersion", "10");
        return ProxyFixture.connect(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD, extra);
    }
}
