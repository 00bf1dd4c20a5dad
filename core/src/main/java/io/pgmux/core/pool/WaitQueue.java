package io.pgmux.core.pool;

import java.util.Iterator;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Clients waiting for a server connection, oldest first. {@link #size()} counts waiters that have not
 * ended yet; a waiter that timed out may stay in the queue until it is polled past.
 */
final class WaitQueue<S> {
    private final ConcurrentLinkedQueue<Waiter<S>> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger waiting = new AtomicInteger();

    /** Adds, then counts: a positive count therefore always has a waiter in the queue behind it. */
    void add(Waiter<S> waiter) {
        queue.add(waiter);
        waiting.incrementAndGet();
    }

    int size() {
        return waiting.get();
    }

    boolean isEmpty() {
        return waiting.get() <= 0;
    }

    /** Takes the oldest waiter out of the queue, to be offered a loan; null if the queue is empty. */
    Waiter<S> poll() {
        return queue.poll();
    }

    /** Offers a loan to a polled waiter; false if it had already ended (it was counted out then). */
    boolean offer(Waiter<S> waiter, Object loan) {
        if (waiter.offer(loan)) {
            waiting.decrementAndGet();
            return true;
        }
        return false;
    }

    /** The oldest waiter still waiting, or null. */
    Waiter<S> oldest() {
        for (Waiter<S> w : queue) {
            if (w.isWaiting()) {
                return w;
            }
        }
        return null;
    }

    /** Ends one waiter with a failure (timeout, interrupt); false if it had already ended. */
    boolean fail(Waiter<S> waiter, Throwable failure) {
        if (waiter.fail(failure)) {
            waiting.decrementAndGet();
            queue.remove(waiter);
            return true;
        }
        return false;
    }

    /** Visits live waiters oldest first; the visitor may fail them. */
    void forEachWaiting(Consumer<Waiter<S>> visitor) {
        Iterator<Waiter<S>> it = queue.iterator();
        while (it.hasNext()) {
            Waiter<S> w = it.next();
            if (w.isWaiting()) {
                visitor.accept(w);
            } else {
                it.remove();
            }
        }
    }
}
