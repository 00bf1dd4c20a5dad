package io.pgmux.proxy.transport;

import java.util.ArrayList;
import java.util.List;

/**
 * Tasks that wait for one moment of a socket (its unsent bytes gone, its close), held as null, the one task or a
 * list of them: one waiter, the common case, costs no list.
 */
final class Callbacks {
    private Callbacks() {
    }

    /** {@code waiters} with {@code done} added after them. */
    @SuppressWarnings("unchecked")
    static Object add(Object waiters, Runnable done) {
        if (waiters == null) {
            return done;
        }
        List<Runnable> list;
        if (waiters instanceof Runnable one) {
            list = new ArrayList<>(2);
            list.add(one);
        } else {
            list = (List<Runnable>) waiters;
        }
        list.add(done);
        return list;
    }

    /** Runs {@code waiters} in the order they were added. */
    @SuppressWarnings("unchecked")
    static void runAll(Object waiters) {
        if (waiters instanceof Runnable one) {
            one.run();
        } else if (waiters != null) {
            ((List<Runnable>) waiters).forEach(Runnable::run);
        }
    }
}
