package io.pgmux.jdbc.fleet;

import io.pgmux.jdbc.PgMuxDataSource;
import java.sql.Connection;
import java.sql.Statement;

/**
 * A fleet member in a JVM of its own, for the tests that kill one: a pool under load until the process ends.
 * Arguments: URL, user, password, fleet, budget, application name. Prints {@code ready} once it has run a query.
 */
public final class FleetMemberProcess {
    private FleetMemberProcess() {
    }

    public static void main(String[] args) throws Exception {
        PgMuxDataSource ds = new PgMuxDataSource();
        ds.setJdbcUrl(args[0]);
        ds.setUsername(args[1]);
        ds.setPassword(args[2]);
        ds.setFleet(args[3]);
        ds.setFleetMaxServers(Integer.parseInt(args[4]));
        ds.addDataSourceProperty("ApplicationName", args[5]);
        ds.setMaximumPoolSize(Integer.parseInt(args[4]));
        ds.setConnectionTimeout(60_000);
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("SELECT 1");
        }
        for (int t = 0; t < 12; t++) {
            Thread thread = new Thread(() -> {
                try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                    for (;;) {
                        st.execute("SELECT pg_sleep(0.02)");
                    }
                } catch (Exception e) {
                    System.exit(1);
                }
            });
            thread.start();
        }
        System.out.println("ready");
        System.out.flush();
    }
}
