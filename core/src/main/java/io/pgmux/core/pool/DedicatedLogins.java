package io.pgmux.core.pool;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The clients of one pool waiting for a server connection of their own (PgBouncer's replication connections): each
 * is opened with the client's startup parameters, so no other client may ever use it. Such a connection takes one
 * of the pool's pool_size slots and of the max_db_connections / max_user_connections ones like any other; when the
 * pool is full, an idle connection is evicted to make room, otherwise the client waits, oldest first, until a
 * connection closes or goes idle, or query_wait_timeout passes.
 */
final class DedicatedLogins<S> {
    private final Pool<S> pool;
    private final ConcurrentLinkedQueue<Request<S>> waiting = new ConcurrentLinkedQueue<>();

    /** One client's wait; completed with the lease of its own connection, or failed. */
    static final class Request<S> extends CompletableFuture<Lease<S>> {
        final Map<String, String> startupParameters;
        final long requestedNanos;

        Request(Map<String, String> startupParameters, long requestedNanos) {
            this.startupParameters = startupParameters;
            this.requestedNanos = requestedNanos;
        }
    }

    DedicatedLogins(Pool<S> pool) {
        this.pool = pool;
    }

    Request<S> request(Map<String, String> startupParameters, long now) {
        Request<S> r = new Request<>(startupParameters, now);
        waiting.add(r);
        openWaiting();
        return r;
    }

    boolean hasWaiting() {
        return !waiting.isEmpty();
    }

    /** The requests still waiting: one its client cancelled leaves the queue at the next pass. */
    int waitingCount() {
        return (int) waiting.stream().filter(r -> !r.isDone()).count();
    }

    /**
     * Opens a connection for each waiting client, oldest first, while a slot can be had, if need be by evicting an
     * idle connection. Safe from any thread: a request is opened by the one caller that takes it off the queue.
     */
    void openWaiting() {
        Request<S> r;
        while (pool.isRunning() && (r = waiting.peek()) != null) {
            if (r.isDone()) {
                waiting.remove(r);
                continue;
            }
            if (!takeServerSlot()) {
                if (pool.disconnect.oneIdle("evicted")) {
                    continue;
                }
                return;
            }
            if (!waiting.remove(r) || r.isDone()) {
                giveBackServerSlot();
                continue;
            }
            open(r);
        }
    }

    /** Takes a pool_size slot and the shared limits' for a dedicated connection; false when one is full. */
    private boolean takeServerSlot() {
        int total;
        do {
            total = pool.serverCount.get();
            if (total >= pool.config().defaultPoolSize()) {
                return false;
            }
        } while (!pool.serverCount.compareAndSet(total, total + 1));
        if (!pool.registry.limits.reserve(pool)) {
            pool.serverCount.decrementAndGet();
            pool.registry.limits.evictIdleFor(pool);
            return false;
        }
        return true;
    }

    /** A slot {@link #takeServerSlot} took was not used after all. */
    private void giveBackServerSlot() {
        pool.serverCount.decrementAndGet();
        pool.registry.limits.release(pool);
    }

    /** Opens the connection of a dedicated request, in a slot already taken for it. */
    private void open(Request<S> r) {
        PooledServer<S> s = new PooledServer<>(pool, pool.clock.nanoTime(), true);
        // server_connect_timeout is the janitor's: it must not sleep through this login
        pool.registry.wakeJanitor();
        pool.servers.add(s);
        Pool.runStage(() -> pool.connector.openDedicated(s, r.startupParameters))
                .whenComplete((conn, err) -> opened(s, r, conn, err));
    }

    /**
     * A dedicated login ended. Its failure is this client's alone, as in PgBouncer: a replication login fails for
     * reasons of its own (no REPLICATION role, no pg_hba.conf line), so the pool's logins go on as they were.
     */
    private void opened(PooledServer<S> s, Request<S> r, S conn, Throwable err) {
        long now = pool.clock.nanoTime();
        if (err != null) {
            s.to(PooledServer.LOGIN, PooledServer.CLOSING);
            pool.disconnect.remove(s);
            r.completeExceptionally(err);
            pool.maybeOpen();
            return;
        }
        s.connection = conn;
        s.affinity = pool.connector.affinity(conn);
        s.connectedAtNanos = now;
        s.to(PooledServer.LOGIN, PooledServer.ACTIVE);
        Lease<S> lease = new Lease<>();
        pool.lending.lend(s, lease, now);
        lease.bind(s);
        if (pool.isClosed()) {
            r.completeExceptionally(pool.shuttingDown());
            pool.disconnect.close(s, PooledServer.ACTIVE, "pool closing");
        } else if (!r.complete(lease)) {
            pool.disconnect.close(s, PooledServer.ACTIVE, "replication client was closed");
        } else {
            pool.lending.assigned(r.requestedNanos, now);
        }
    }

    /** query_wait_timeout: fails the requests that waited that long (0: none ever does). */
    void expire(long now, long timeoutNanos) {
        if (timeoutNanos <= 0) {
            return;
        }
        for (Request<S> r : waiting) {
            long waited = now - r.requestedNanos;
            if (waited >= timeoutNanos && waiting.remove(r)) {
                r.completeExceptionally(new PoolTimeoutException("query_wait_timeout: pool " + pool.name()
                        + " had no slot free for a dedicated server connection", waited, null));
            }
        }
    }

    /** The pool closes: nobody waiting will be served. */
    void failAll(Throwable failure) {
        Request<S> r;
        while ((r = waiting.poll()) != null) {
            r.completeExceptionally(failure);
        }
    }
}
