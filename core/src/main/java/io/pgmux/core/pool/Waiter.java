package io.pgmux.core.pool;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;

/**
 * A client waiting for a server connection: either a parked thread (blocking acquire) or a future
 * (asynchronous acquire). Whoever sets the outcome first — a hand-off, a timeout, a failure — wins.
 * The server is lent to {@link #holder}: the client itself, or a {@link Lease} bound to the server then.
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
    /** Whom the server is lent to: the client of {@link Pool#acquireFor}, or a Lease. */
    final Object holder;
    /** The affinity the client prefers; null for none. */
    final Object affinity;
    /**
     * How often a hand-off preferring another affinity passed this waiter over. Updated without atomics by
     * whichever thread hands off: a lost increment only lets the waiter be passed over once more.
     */
    int passedOver;
    private final Thread thread;
    /** The asynchronous waiter's lease, which the future completes with; null for a blocking waiter. */
    private final Lease<S> lease;
    private final CompletableFuture<Lease<S>> future;
    /** null while waiting, then the server lent to {@link #holder}, or a Throwable. */
    private volatile Object outcome;

    private Waiter(long enqueuedNanos, long deadlineNanos, Object holder, Object affinity, Thread thread,
                   Lease<S> lease, CompletableFuture<Lease<S>> future) {
        this.enqueuedNanos = enqueuedNanos;
        this.deadlineNanos = deadlineNanos;
        this.holder = holder;
        this.affinity = affinity;
        this.thread = thread;
        this.lease = lease;
        this.future = future;
    }

    /** A parked thread waiting for a server lent to {@code holder}. */
    static <S> Waiter<S> blocking(long now, long deadline, Object holder) {
        return new Waiter<>(now, deadline, holder, null, Thread.currentThread(), null, null);
    }

    /** A future completing with a lease. */
    static <S> Waiter<S> async(long now, long deadline, Object affinity) {
        Lease<S> lease = new Lease<>();
        return new Waiter<>(now, deadline, lease, affinity, null, lease, new CompletableFuture<>());
    }

    CompletableFuture<Lease<S>> future() {
        return future;
    }

    boolean isWaiting() {
        return outcome == null;
    }

    /**
     * The server lent to {@link #holder}, or null while still waiting.
     *
     * @throws RuntimeException the failure that ended the wait
     */
    @SuppressWarnings("unchecked")
    PooledServer<S> served() {
        Object o = outcome;
        if (o instanceof Throwable) {
            throw rethrown((Throwable) o);
        }
        return (PooledServer<S>) o;
    }

    private static RuntimeException rethrown(Throwable t) {
        if (t instanceof PoolTimeoutException) {
            // Fresh copy so the caller's stack trace shows its own call site, with the cause chain kept.
            PoolTimeoutException e = (PoolTimeoutException) t;
            return new PoolTimeoutException(e.getMessage(), e.waitedNanos(), e.getCause());
        }
        if (t instanceof RuntimeException) {
            return (RuntimeException) t;
        }
        return new PoolException(t.getMessage(), t);
    }

    /** Hands over a server already lent to {@link #holder}; false if the waiter already gave up. */
    boolean offer(PooledServer<S> server) {
        if (!OUTCOME.compareAndSet(this, null, server)) {
            return false;
        }
        if (future != null) {
            lease.bind(server);
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
