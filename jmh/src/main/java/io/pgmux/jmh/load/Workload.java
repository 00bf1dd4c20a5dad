package io.pgmux.jmh.load;

import java.sql.SQLException;
import java.util.concurrent.ThreadLocalRandom;

/** What one load thread does over and over: one request, from taking a connection to giving it back. */
interface Workload {

    /** Short description, as the result table shows it. */
    String name();

    /** Statements one request runs, to turn requests per second into statements per second. */
    int statementsPerRequest();

    void request(Borrower borrower, ThreadLocalRandom random) throws SQLException, InterruptedException;
}
