package io.pgmux.jmh.load;

import java.sql.SQLException;

/** One row of a result table: a way to reach the server, the threads that use it, and what they run. */
record Contender(String label, VariantFactory variant, int threads, Workload workload) {

    /** Makes a fresh variant (a new pool) for every round, so that no round inherits another's state. */
    @FunctionalInterface
    interface VariantFactory {
        Variant create() throws SQLException;
    }
}
