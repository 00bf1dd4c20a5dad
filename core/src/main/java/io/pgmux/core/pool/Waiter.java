package io.pgmux.core.pool;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client waiting for a server connection: either a parked thread (blocking acquire) or a callback
 * (asynchronous acquire). Whoever ends the wait first — a hand-off, a timeout, a failure — wins.
 * The server is lent to {@link #holder}: the client itself, or a {@link Lease} bound to the server then.
 *
 * <p>A client that waits often keeps one waiter for all its waits ({@link Pool#waiter}), so that a wait allocates
 * no waiter. Each wait has a number: {@link #ticket} is twice it, plus one once the wait ended. Ending a wait is a
 * CAS of the ticket its ender saw waiting, so that a hand-off or a timeout judged on an earlier wait (a stale
 * entry in the queue, a janitor's pass under way) cannot end a later one.
 */
public final class Waiter<S> {
    private static final Logger log = LoggerFactory.getLogger(Waiter.class);
    private static final VarHandle TICKET;

    static {
        try {
            TICKET = MethodHandles.lookup().findVarHandle(Waiter.class, "ticket", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Written before the wait is published (queued), by the client starting it, as the two below. */
    long enqueuedNanos;
    /** Long.MAX_VALUE when the wait is unbounded. */
    long deadlineNanos;
    /** Whom the server is lent to: the client of {@link Pool#acquireFor}, or a Lease. */
    final Object holder;
    /** The affinity the client prefers; null for none. */
    Object affinity;
    /**
     * How often a hand-off preferring another affinity passed this waiter over. Updated without atomics by
     * whichever thread hands off: a lost increment only lets the waiter be passed over once more.
     */
    int passedOver;
    /** The neighbours in its pool's {@link WaitQueue}, and whether it is linked there: guarded by that queue's lock. */
    Waiter<S> prev;
    Waiter<S> next;
    boolean queued;
    /**
     * The ticket of the wait a {@link WaitQueue#poll} took out, read there under the lock: the wait a hand-off may
     * end. A ticket read after the poll could be that of the client's next wait, queued again meanwhile (the one
     * polled having timed out), which the hand-off would end while it is still queued.
     */
    long polledTicket;
    private final Thread thread;
    /**
     * The asynchronous waiter's lease, which {@link #whenDone} gets; null for a blocking waiter, and for one whose
     * client is itself the holder ({@link #reusable}), which gets the server.
     */
    private final Lease<S> lease;
    /**
     * Called once, with the lease (or the server lent to the client holding it) or the failure, by the thread that
     * ends the wait; null for a blocking waiter.
     */
    private final BiConsumer<Object, ? super Throwable> whenDone;
    /** The wait's number times two, plus one once it ended: see the class comment. */
    private volatile long ticket;
    /** null while waiting, then the server lent to {@link #holder}, or a Throwable; written by the wait's ender. */
    private volatile Object outcome;

    @SuppressWarnings("unchecked")
    private Waiter(long enqueuedNanos, long deadlineNanos, Object holder, Object affinity, Thread thread,
                   Lease<S> lease, BiConsumer<?, ? super Throwable> whenDone) {
        this.enqueuedNanos = enqueuedNanos;
        this.deadlineNanos = deadlineNanos;
        this.holder = holder;
        this.affinity = affinity;
        this.thread = thread;
        this.lease = lease;
        this.whenDone = (BiConsumer<Object, ? super Throwable>) whenDone;
    }

    /** A parked thread waiting for a server lent to {@code holder}. */
    static <S> Waiter<S> blocking(long now, long deadline, Object holder) {
        return new Waiter<>(now, deadline, holder, null, Thread.currentThread(), null, null);
    }

    /** A callback given a lease, or the failure that ended the wait. */
    static <S> Waiter<S> async(long now, long deadline, Object affinity,
            BiConsumer<? super Lease<S>, ? super Throwable> whenDone) {
        Lease<S> lease = new Lease<>();
        return new Waiter<>(now, deadline, lease, affinity, null, lease, whenDone);
    }

    /**
     * A callback given the server lent to {@code client} itself, or the failure that ended the wait, for every wait of
     * that client: ended until {@link #restart}.
     */
    static <S> Waiter<S> reusable(Object client, BiConsumer<? super LentServer<S>, ? super Throwable> whenDone) {
        Waiter<S> w = new Waiter<>(0, 0, client, null, null, null, whenDone);
        w.ticket = 1;
        return w;
    }

    /** Starts the next wait of a reusable waiter whose last wait ended; not queued yet. */
    void restart(long now, long deadline, Object preferred) {
        assert !isWaiting() : "a waiter restarted while it waits";
        enqueuedNanos = now;
        deadlineNanos = deadline;
        affinity = preferred;
        passedOver = 0;
        outcome = null;
        ticket = ticket + 1;
    }

    /** Whether this is the asynchronous wait that calls {@code callback}. */
    boolean calls(Object callback) {
        return whenDone != null && whenDone == callback;
    }

    boolean isWaiting() {
        return waiting(ticket);
    }

    /** The current wait's ticket, for {@link #end(long, Object)}. */
    long ticket() {
        return ticket;
    }

    /** Whether {@code ticket} is that of a wait not ended. */
    static boolean waiting(long ticket) {
        return (ticket & 1) == 0;
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

    /**
     * Ends the wait of {@code seen} (a {@link #ticket()} read before) with a server already lent to {@link #holder},
     * or with a failure; false if that wait had ended already. The client learns of it only from {@link #deliver()},
     * so that the pool can count the wait out first.
     */
    boolean end(long seen, Object served) {
        if (!waiting(seen) || !TICKET.compareAndSet(this, seen, seen + 1)) {
            return false;
        }
        outcome = served;
        return true;
    }

    /** Answers the client at once, without a wait (a server was free, or the pool refused): on the caller's thread. */
    void answerNow(Object served, Throwable failure) {
        whenDone.accept(served, failure);
    }

    /** Tells the client how its wait ended: the callback gets the lease or the failure, a parked thread wakes. */
    @SuppressWarnings("unchecked")
    void deliver() {
        Object o = outcome;
        if (whenDone == null) {
            LockSupport.unpark(thread);
        } else if (o instanceof Throwable failure) {
            callBack(null, failure);
        } else if (lease == null) {
            callBack(o, null);
        } else {
            lease.bind((PooledServer<S>) o);
            callBack(lease, null);
        }
    }

    /** The client's callback runs on the pool's thread of the moment: its failure must not end the pool's work. */
    private void callBack(Object served, Throwable failure) {
        try {
            whenDone.accept(served, failure);
        } catch (RuntimeException | Error e) {
            log.error("A waiting client's callback failed", e);
        }
    }
}
