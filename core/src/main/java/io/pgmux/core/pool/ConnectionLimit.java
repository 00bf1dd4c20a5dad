package io.pgmux.core.pool;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A count shared by several pools or clients, taken against a limit without a lock: server connections
 * (max_db_connections, max_user_connections) here, the proxy's clients (max_db_client_connections,
 * max_user_client_connections) there.
 */
public final class ConnectionLimit {
    private final AtomicInteger count = new AtomicInteger();

    /** Takes a slot unless {@code max} (0 = unlimited) are taken. */
    public boolean tryAcquire(int max) {
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

    public void release() {
        count.decrementAndGet();
    }

    public int count() {
        return count.get();
    }
}
