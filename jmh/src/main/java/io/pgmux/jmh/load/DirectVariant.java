package io.pgmux.jmh.load;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Properties;
import org.postgresql.Driver;

/** pgjdbc without a pool: each thread opens one connection before the run and keeps it to the end. */
final class DirectVariant implements Variant {
    private final Driver driver = new Driver();
    private final ServerTarget target;

    DirectVariant(ServerTarget target) {
        this.target = target;
    }

    @Override
    public String name() {
        return "direct pgjdbc";
    }

    @Override
    public Borrower borrower() throws SQLException {
        Properties props = target.properties();
        Connection own = driver.connect(target.url(), props);
        return new Borrower() {
            @Override
            public Connection take() {
                return own;
            }

            @Override
            public void giveBack(Connection connection) {
                // The connection stays with its thread, as in an application that opens one per worker.
            }

            @Override
            public void close() throws SQLException {
                own.close();
            }
        };
    }

    @Override
    public void close() {
        // Every connection belongs to a borrower and is closed with it.
    }
}
