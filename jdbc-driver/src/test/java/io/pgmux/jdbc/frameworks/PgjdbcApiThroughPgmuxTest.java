package io.pgmux.jdbc.frameworks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.pgmux.core.config.PoolMode;
import io.pgmux.jdbc.PgMuxDriver;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.Sql;
import io.pgmux.testing.TestDatabase;
import java.io.StringReader;
import java.io.StringWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.postgresql.copy.CopyManager;

/**
 * pgjdbc's own API through {@code jdbc:pgmux} in session and transaction mode: COPY with the CopyManager and
 * LISTEN/NOTIFY with getNotifications, both through {@code unwrap(PGConnection.class)}, and a cursor read in
 * batches of {@code fetchSize} rows.
 */
@PostgresTest
class PgjdbcApiThroughPgmuxTest {
    private final TestDatabase db;

    PgjdbcApiThroughPgmuxTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void closePools() {
        PgMuxDriver.closeAll();
    }

    private Connection connect(PoolMode mode, String scenario) throws SQLException {
        return DriverManager.getConnection(PgmuxUrls.url(db, mode, scenario + "_" + name(mode), 2), db.superuser(),
                db.superuserPassword());
    }

    private static String name(PoolMode mode) {
        return mode.name().toLowerCase(Locale.ROOT);
    }

    @ParameterizedTest
    @EnumSource(value = PoolMode.class, names = {"SESSION", "TRANSACTION"})
    void copyInAndCopyOutThroughTheCopyManager(PoolMode mode) throws Exception {
        String table = "copied_" + name(mode);
        try (Connection c = connect(mode, "copy")) {
            try (Statement st = c.createStatement()) {
                st.execute("CREATE TABLE " + table + " (n int, word text)");
            }
            CopyManager copy = c.unwrap(PGConnection.class).getCopyAPI();

            assertEquals(3, copy.copyIn("COPY " + table + " FROM STDIN", new StringReader("1\tone\n2\ttwo\n3\tthree\n")));
            StringWriter out = new StringWriter();
            assertEquals(3, copy.copyOut("COPY (SELECT * FROM " + table + " ORDER BY n) TO STDOUT", out));

            assertEquals("1\tone\n2\ttwo\n3\tthree\n", out.toString());
            assertEquals("3", Sql.value(c, "SELECT count(*) FROM " + table), "the logical connection sees the rows");
        }
    }

    @ParameterizedTest
    @EnumSource(value = PoolMode.class, names = {"SESSION", "TRANSACTION"})
    void aListenerGetsWhatAnotherConnectionNotifies(PoolMode mode) throws Exception {
        String channel = "surface_" + name(mode);
        try (Connection listener = connect(mode, "listen"); Connection notifier = connect(mode, "listen")) {
            try (Statement st = listener.createStatement()) {
                st.execute("LISTEN " + channel);
            }
            try (Statement st = notifier.createStatement()) {
                st.execute("NOTIFY " + channel + ", 'through pgmux'");
            }

            PGNotification[] got = listener.unwrap(PGConnection.class).getNotifications(10_000);

            assertNotNull(got, "a notification within 10 s");
            assertEquals(1, got.length);
            assertEquals(channel, got[0].getName());
            assertEquals("through pgmux", got[0].getParameter());
        }
    }

    @ParameterizedTest
    @EnumSource(value = PoolMode.class, names = {"SESSION", "TRANSACTION"})
    void aQueryWithAFetchSizeIsReadThroughAPortalInBatches(PoolMode mode) throws Exception {
        try (Connection c = connect(mode, "cursor")) {
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                st.setFetchSize(100);
                long sum = 0;
                int rows = 0;
                try (ResultSet rs = st.executeQuery("SELECT n FROM generate_series(1, 1000) AS n")) {
                    while (rs.next()) {
                        sum += rs.getLong(1);
                        if (++rows == 500) {
                            assertEquals("1", Sql.value(c, "SELECT count(*) FROM pg_cursors WHERE name LIKE 'C\\_%'"),
                                    "the rows not read yet wait in the server's portal");
                        }
                    }
                }
                assertEquals(1000, rows);
                assertEquals(500_500L, sum);
            }
            c.commit();
        }
    }
}
