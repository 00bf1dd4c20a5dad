package io.pgmux.core.pool;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;

/**
 * A client waiting for a server connection: either a parked thread (blocking acquire) or a future
 * (asynchronous acquire). Whoever sets the outcome first — a hand-off, a timeout, a failure — wins.
 */
final class Waiter<S> {
    private static final VarHandle OUTCOME;

    static {
        try {
            OUTCOME = MethodHandles.lookup().findVarHandle(Waiter.class, "outcome", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final long enqueuedNanos;
    /** Long.MAX_VALUE when the wait is unbounded. */
    final long deadlineNanos;
    /** The affinity the client prefers; null for none. */
    final Object affinity;
    /**
     * How often a hand-off preferring another affinity passed this waiter over. Updated without atomics by
     * whichever thread hands off: a lost increment only lets the waiter be passed over once more.
     */
    int passedOver;
    private final Thread thread;
    private final CompletableFuture<Lease<S>> future;
    /** null while waiting, then a Lease or a Throwable. */
    private volatile Object outcome;

    private Waiter(long enqueuedNanos, long deadlineNanos, Object affinity, Thread thread,
            CompletableFuture<Lease<S>> future) {
        this.enqueuedNanos = enqueuedNanos;
        this.deadlineNanos = deadlineNanos;
        this.affinity = affinity;
        this.thread = thread;
        this.future = future;
    }

    static <S> Waiter<S> blocking(long now, long deadline, Object affinity) {
        return new Waiter<>(now, deadline, affinity, Thread.currentThread(), null);
    }

    static <S> Waiter<S> async(long now, long deadline, Object affinity) {
        return new Waiter<>(now, deadline, affinity, null, new CompletableFuture<>());
    }

    CompletableFuture<Lease<S>> future() {
        return future;
    }

    boolean isWaiting() {
        return outcome == null;
    }

    Object outcome() {
        return outcome;
    }

    /** Hands a lease over; false if the waiter already gave up. */
    boolean offer(Lease<S> lease) {
        if (!OUTCOME.compareAndSet(this, null, lease)) {
            return false;
        }
        if (future != null) {
            future.complete(lease);
        } else {
            LockSupport.unpark(thread);
        }
        return true;
    }

    /** Ends the wait with an error; false if it had already ended. */
    boolean fail(Throwable failure) {
        if (!OUTCOME.compareAndSet(this, null, failure)) {
            return false;
        }
        if (future != null) {
            future.completeExceptionally(failure);
        } else {
            LockSupport.unpark(thread);
        }
        return true;
    }
}
