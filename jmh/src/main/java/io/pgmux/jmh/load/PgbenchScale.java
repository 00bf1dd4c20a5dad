package io.pgmux.jmh.load;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.postgresql.Driver;

/** The scale of the pgbench tables, read as pgbench reads it: the number of rows in pgbench_branches. */
final class PgbenchScale {
    /** Rows per unit of scale, as pgbench -i creates them. */
    static final int ACCOUNTS = 100_000;
    static final int TELLERS = 10;

    private PgbenchScale() {
    }

    static int read(ServerTarget target) throws SQLException {
        try (Connection c = new Driver().connect(target.url(), target.properties());
             Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM pgbench_branches")) {
            rs.next();
            int scale = rs.getInt(1);
            if (scale < 1) {
                throw new SQLException("pgbench_branches is empty: initialise the database with pgbench -i");
            }
            return scale;
        }
    }
}
