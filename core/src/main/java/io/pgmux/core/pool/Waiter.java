package io.pgmux.core.pool;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;

/**
 * A client waiting for a server connection: either a parked thread (blocking acquire) or a future
 * (asynchronous acquire). Whoever sets the outcome first — a hand-off, a timeout, a failure — wins.
 * The connection is lent to {@link #client} when there is one, else through a new {@link Lease}.
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
    /** Whom the connection is lent to (see {@link Pool#acquireFor}); null to lend it through a new Lease. */
    final Object client;
    /** The affinity the client prefers; null for none. */
    final Object affinity;
    /**
     * How often a hand-off preferring another affinity passed this waiter over. Updated without atomics by
     * whichever thread hands off: a lost increment only lets the waiter be passed over once more.
     */
    int passedOver;
    private final Thread thread;
    private final CompletableFuture<Lease<S>> future;
    /** null while waiting, then the loan (a Lease, or the server lent to {@link #client}) or a Throwable. */
    private volatile Object outcome;

    private Waiter(long enqueuedNanos, long deadlineNanos, Object client, Object affinity, Thread thread,
                   CompletableFuture<Lease<S>> future) {
        this.enqueuedNanos = enqueuedNanos;
        this.deadlineNanos = deadlineNanos;
        this.client = client;
        this.affinity = affinity;
        this.thread = thread;
        this.future = future;
    }

    static <S> Waiter<S> blocking(long now, long deadline, Object client) {
        return new Waiter<>(now, deadline, client, null, Thread.currentThread(), null);
    }

    static <S> Waiter<S> async(long now, long deadline, Object affinity) {
        return new Waiter<>(now, deadline, null, affinity, null, new CompletableFuture<>());
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

    /** Hands a loan over; false if the waiter already gave up. */
    @SuppressWarnings("unchecked")
    boolean offer(Object loan) {
        if (!OUTCOME.compareAndSet(this, null, loan)) {
            return false;
        }
        if (future != null) {
            future.complete((Lease<S>) loan);
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
