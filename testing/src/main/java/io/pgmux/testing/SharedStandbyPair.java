package io.pgmux.testing;

import java.util.concurrent.locks.ReentrantLock;

/**
 * The one {@link StandbyPair} of this JVM for the test classes that leave it as they found it: both servers
 * running, the standby streaming and replaying. A pair takes seconds to start (initdb, pg_basebackup, two servers),
 * so the classes that only read, write and pause replay share this one, started on first use and stopped when the
 * JVM exits. A class that promotes, stops or reconfigures a server starts a pair of its own.
 */
public final class SharedStandbyPair {
    private static final ReentrantLock LOCK = new ReentrantLock();
    private static StandbyPair pair;

    private SharedStandbyPair() {
    }

    /**
     * The shared pair as a class starts with it: the standby replaying (a class that failed while replay was paused
     * may have left it so) and caught up with the primary.
     */
    public static StandbyPair get() {
        LOCK.lock();
        try {
            if (pair == null) {
                pair = StandbyPair.start();
                Runtime.getRuntime().addShutdownHook(new Thread(pair::close, "pgmux-standby-pair-shutdown"));
            }
            pair.executeOnStandby(0, "SELECT pg_wal_replay_resume()");
            pair.awaitStandbyCaughtUp();
            return pair;
        } finally {
            LOCK.unlock();
        }
    }

    /**
     * {@link #get()} with an empty table {@code ledger (n int)} on the primary, replayed by the standby: the rows an
     * earlier class wrote are gone.
     */
    public static StandbyPair withEmptyLedger() {
        StandbyPair shared = get();
        // DELETE, not DROP or TRUNCATE: it waits for no lock a session left open by an earlier class may hold
        shared.executeOnPrimary("CREATE TABLE IF NOT EXISTS ledger (n int)", "DELETE FROM ledger");
        shared.awaitStandbyCaughtUp();
        return shared;
    }
}
