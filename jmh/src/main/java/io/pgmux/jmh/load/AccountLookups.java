package io.pgmux.jmh.load;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A web request's worth of work: one connection held for a few autocommit look-ups of random
 * accounts, with the application thinking between them (rendering, calling other services).
 */
final class AccountLookups implements Workload {
    static final String SQL = "SELECT abalance FROM pgbench_accounts WHERE aid = ?";

    private final int queries;
    private final long thinkMillis;
    private final int accounts;

    AccountLookups(int queries, long thinkMillis, int scale) {
        this.queries = queries;
        this.thinkMillis = thinkMillis;
        this.accounts = scale * PgbenchScale.ACCOUNTS;
    }

    @Override
    public String name() {
        return queries + " look-ups, " + thinkMillis + " ms think time between them";
    }

    @Override
    public int statementsPerRequest() {
        return queries;
    }

    @Override
    public void request(Borrower borrower, ThreadLocalRandom random) throws SQLException, InterruptedException {
        Connection c = borrower.take();
        try (PreparedStatement ps = c.prepareStatement(SQL)) {
            for (int i = 0; i < queries; i++) {
                if (i > 0 && thinkMillis > 0) {
                    Thread.sleep(thinkMillis);
                }
                ps.setInt(1, 1 + random.nextInt(accounts));
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        throw new SQLException("no account row: is the pgbench scale right?");
                    }
                    rs.getInt(1);
                }
            }
        } finally {
            borrower.giveBack(c);
        }
    }
}
