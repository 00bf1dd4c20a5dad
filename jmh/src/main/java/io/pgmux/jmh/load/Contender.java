package io.pgmux.jmh.load;

import java.sql.SQLException;

/**
 * One row of a result table: a way to reach the server, the threads that use it (how many, and of which
 * kind), and what they run.
 */
record Contender(String label, VariantFactory variant, int threads, Workload workload, LoadThreads kind) {

    /** A contender whose load runs on platform threads. */
    Contender(String label, VariantFactory variant, int threads, Workload workload) {
        this(label, variant, threads, workload, LoadThreads.PLATFORM);
    }

    /** Makes a fresh variant (a new pool) for every round, so that no round inherits another's state. */
    @FunctionalInterface
    interface VariantFactory {
        Variant create() throws SQLException;
    }
}
