package io.pgmux.jmh.load;

import java.sql.SQLException;

/** One way of reaching the server under comparison: a pool, or one direct connection per thread. */
interface Variant extends AutoCloseable {

    /** Short name, as the result table shows it. */
    String name();

    /** What one load thread uses; called once per thread, before the run starts. */
    Borrower borrower() throws SQLException;

    @Override
    void close();
}
