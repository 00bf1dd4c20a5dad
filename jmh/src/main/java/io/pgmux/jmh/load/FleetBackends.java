package io.pgmux.jmh.load;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.postgresql.Driver;

/**
 * The members' backends as an operator sees them: counted in pg_stat_activity every 100 ms, per member by the
 * application name {@code <prefix><index>} its pool gives its connections (the fleet's coordination connections
 * name themselves otherwise and are not counted), and the most seen at once since {@link #resetMost()}.
 */
final class FleetBackends implements AutoCloseable {
    static final long PERIOD_MS = 100;

    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicIntegerArray now;
    private final Thread thread;
    private volatile int most;
    private volatile SQLException failure;

    FleetBackends(ServerTarget target, String prefix, int members) throws SQLException {
        this.now = new AtomicIntegerArray(members);
        Connection c = new Driver().connect(target.url(), target.properties());
        PreparedStatement st = c.prepareStatement("SELECT application_name, count(*) FROM pg_stat_activity"
                + " WHERE usename = current_user AND application_name LIKE ? GROUP BY 1");
        st.setString(1, prefix + "%");
        thread = new Thread(() -> {
            try (c; st) {
                while (running.get()) {
                    int[] seen = new int[members];
                    int total = 0;
                    try (ResultSet rs = st.executeQuery()) {
                        while (rs.next()) {
                            seen[Integer.parseInt(rs.getString(1).substring(prefix.length()))] = rs.getInt(2);
                            total += rs.getInt(2);
                        }
                    }
                    for (int i = 0; i < members; i++) {
                        now.set(i, seen[i]);
                    }
                    most = Math.max(most, total);
                    Thread.sleep(PERIOD_MS);
                }
            } catch (SQLException e) {
                failure = e;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "fleet-backends");
        thread.setDaemon(true);
        thread.start();
    }

    /** The member's backends at the last sample. */
    int now(int member) {
        check();
        return now.get(member);
    }

    /** The most backends of all members seen at once since the last reset. */
    int most() {
        check();
        return most;
    }

    void resetMost() {
        most = 0;
    }

    private void check() {
        if (failure != null) {
            throw new IllegalStateException("counting backends in pg_stat_activity failed", failure);
        }
    }

    @Override
    public void close() throws InterruptedException {
        running.set(false);
        thread.join();
    }
}
