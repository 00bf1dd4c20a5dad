package io.pgmux.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;

/** pgbench's tables in a test database: made by {@code pgbench -i}, and its TPC-B balances checked afterwards. */
public final class PgbenchTables {
    private PgbenchTables() {
    }

    /** Runs {@code pgbench -i -s 1} against the server directly; aborts the test where pgbench is not installed. */
    public static void initialize(TestDatabase db) throws IOException, InterruptedException {
        String pgbench = Clients.executable("pgbench", "install the PostgreSQL client tools to run this test")
                .toString();
        Process init = new ProcessBuilder(pgbench, "-i", "-s", "1", "-q", "host=" + db.host() + " port=" + db.port()
                + " dbname=" + db.name() + " user=" + db.superuser() + " password=" + db.superuserPassword())
                .redirectErrorStream(true).start();
        String output = new String(init.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!init.waitFor(60, TimeUnit.SECONDS) || init.exitValue() != 0) {
            init.destroyForcibly();
            throw new AssertionError("pgbench -i failed: " + output);
        }
    }

    /**
     * Checks that no money was made or lost: the accounts', tellers', branches' and history's totals are equal, as
     * every TPC-B transaction adds its delta to each of them or to none.
     */
    public static void assertBalancesExact(TestDatabase db) throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT (SELECT sum(abalance) FROM pgbench_accounts),"
                     + " (SELECT sum(tbalance) FROM pgbench_tellers), (SELECT sum(bbalance) FROM pgbench_branches),"
                     + " (SELECT sum(delta) FROM pgbench_history)")) {
            rs.next();
            long accounts = rs.getLong(1);
            for (int column = 2; column <= 4; column++) {
                if (rs.getLong(column) != accounts) {
                    throw new AssertionError("TPC-B totals differ: accounts " + accounts + ", tellers " + rs.getLong(2)
                            + ", branches " + rs.getLong(3) + ", history " + rs.getLong(4));
                }
            }
        }
    }
}
