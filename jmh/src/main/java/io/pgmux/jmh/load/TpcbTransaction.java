package io.pgmux.jmh.load;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.ThreadLocalRandom;

/**
 * pgbench's built-in "TPC-B (sort of)" transaction, through JDBC as an application runs it: take a
 * connection, autocommit off, the five statements, commit, autocommit back on, give it back.
 */
final class TpcbTransaction implements Workload {
    private static final String UPDATE_ACCOUNT = "UPDATE pgbench_accounts SET abalance = abalance + ? WHERE aid = ?";
    private static final String SELECT_ACCOUNT = "SELECT abalance FROM pgbench_accounts WHERE aid = ?";
    private static final String UPDATE_TELLER = "UPDATE pgbench_tellers SET tbalance = tbalance + ? WHERE tid = ?";
    private static final String UPDATE_BRANCH = "UPDATE pgbench_branches SET bbalance = bbalance + ? WHERE bid = ?";
    private static final String INSERT_HISTORY = "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime)"
            + " VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)";

    private final int scale;

    TpcbTransaction(int scale) {
        this.scale = scale;
    }

    @Override
    public String name() {
        return "TPC-B (pgbench tpcb-like)";
    }

    @Override
    public int statementsPerRequest() {
        return 5;
    }

    @Override
    public void request(Borrower borrower, ThreadLocalRandom random) throws SQLException {
        int aid = 1 + random.nextInt(scale * PgbenchScale.ACCOUNTS);
        int bid = 1 + random.nextInt(scale);
        int tid = 1 + random.nextInt(scale * PgbenchScale.TELLERS);
        int delta = random.nextInt(-5000, 5001);
        Connection c = borrower.take();
        try {
            c.setAutoCommit(false);
            update(c, UPDATE_ACCOUNT, delta, aid);
            try (PreparedStatement ps = c.prepareStatement(SELECT_ACCOUNT)) {
                ps.setInt(1, aid);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    rs.getInt(1);
                }
            }
            update(c, UPDATE_TELLER, delta, tid);
            update(c, UPDATE_BRANCH, delta, bid);
            try (PreparedStatement ps = c.prepareStatement(INSERT_HISTORY)) {
                ps.setInt(1, tid);
                ps.setInt(2, bid);
                ps.setInt(3, aid);
                ps.setInt(4, delta);
                ps.executeUpdate();
            }
            c.commit();
        } catch (SQLException | RuntimeException e) {
            try {
                c.rollback();
            } catch (SQLException rollbackFailure) {
                e.addSuppressed(rollbackFailure);
            }
            throw e;
        } finally {
            restoreAndGiveBack(borrower, c);
        }
    }

    private static void update(Connection c, String sql, int delta, int key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setInt(1, delta);
            ps.setInt(2, key);
            ps.executeUpdate();
        }
    }

    /** Restores autocommit, as a transaction manager does, then gives the connection back. */
    private static void restoreAndGiveBack(Borrower borrower, Connection c) throws SQLException {
        try {
            c.setAutoCommit(true);
        } finally {
            borrower.giveBack(c);
        }
    }
}
