package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgmux.core.config.PoolMode;
import io.pgmux.core.testing.PostgresTest;
import io.pgmux.core.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** How a client's settings are replayed on a server connection that served another client before. */
@PostgresTest
class SettingsReplayTest {
    private final TestDatabase db;

    SettingsReplayTest(TestDatabase db) {
        this.db = db;
    }

    /**
     * The replay is parsed under the settings the previous client left: with standard_conforming_strings off a
     * backslash in a plain literal would be an escape, and the next client's value would lose it.
     */
    @Test
    void aValueWithBackslashesAndQuotesSurvivesAServerLeftWithStandardConformingStringsOff() throws Exception {
        Properties old = new Properties();
        old.setProperty("options", "-c standard_conforming_strings=off");
        Properties quoted = new Properties();
        String name = "back\\slash 'quoted' \\'";
        quoted.setProperty("ApplicationName", name);
        try (PgMuxProxy oneServer = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.defaultPoolSize(1));
             Connection escaping = connect(oneServer, old);
             Connection next = connect(oneServer, quoted)) {
            assertEquals("off", show(escaping, "standard_conforming_strings"));
            assertEquals(name, show(next, "application_name"));
            assertEquals("on", show(next, "standard_conforming_strings"));
            assertEquals("off", show(escaping, "standard_conforming_strings"));
        }
    }

    private Connection connect(PgMuxProxy proxy, Properties props) throws SQLException {
        return ProxyFixture.connect(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD, props);
    }

    private static String show(Connection c, String setting) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW " + setting)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
