package io.pgmux.jmh.load;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.ThreadLocalRandom;

/** pgbench's built-in "select only" transaction: one autocommit look-up of a random account. */
final class SelectOnly implements Workload {
    private final int accounts;

    SelectOnly(int scale) {
        this.accounts = scale * PgbenchScale.ACCOUNTS;
    }

    @Override
    public String name() {
        return "select-only (pgbench select-only)";
    }

    @Override
    public int statementsPerRequest() {
        return 1;
    }

    @Override
    public void request(Borrower borrower, ThreadLocalRandom random) throws SQLException {
        Connection c = borrower.take();
        try (PreparedStatement ps = c.prepareStatement(AccountLookups.SQL)) {
            ps.setInt(1, 1 + random.nextInt(accounts));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                rs.getInt(1);
            }
        } finally {
            borrower.giveBack(c);
        }
    }
}
