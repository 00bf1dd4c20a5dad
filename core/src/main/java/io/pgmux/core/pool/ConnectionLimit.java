package io.pgmux.core.pool;

import java.util.concurrent.atomic.AtomicInteger;

/** A count of server connections shared by several pools (max_db_connections, max_user_connections). */
final class ConnectionLimit {
    private final AtomicInteger count = new AtomicInteger();

    /** Takes a slot unless {@code max} (0 = unlimited) are taken. */
    boolean tryAcquire(int max) {
        if (max <= 0) {
            count.incrementAndGet();
            return true;
        }
        for (;;) {
            int c = count.get();
            if (c >= max) {
                return false;
            }
            if (count.compareAndSet(c, c + 1)) {
                return true;
            }
        }
    }

    void release() {
        count.decrementAndGet();
    }

    int count() {
        return count.get();
    }
}
