package io.pgmux.core.pool;

import io.pgmux.core.stats.PoolSnapshot;
import io.pgmux.core.stats.ServerSnapshot;
import java.util.ArrayList;
import java.util.List;

/**
 * What SHOW POOLS, SHOW SERVERS and the pool's MXBean show of one pool, read without changing it. A single
 * figure comes from a counter where the pool keeps one (servers, logins, clients, waiting clients,
 * traffic), else from one pass over the servers that builds no row; only the SHOW rows are built whole.
 */
public final class PoolView<S> {
    private final Pool<S> pool;
    private final ServerSet<S> servers;
    private final WaitQueue<S> waiters;

    PoolView(Pool<S> pool, ServerSet<S> servers, WaitQueue<S> waiters) {
        this.pool = pool;
        this.servers = servers;
        this.waiters = waiters;
    }

    /** SHOW POOLS for this pool, counted from the servers' states at this moment. */
    public PoolSnapshot snapshot() {
        long now = pool.clock().nanoTime();
        ServerCounts c = count(now);
        int waiting = waitingClients();
        long waitedMicros = maxWaitMicros(now);
        return new PoolSnapshot(pool.key().database(), pool.key().user(), activeClients(waiting, c.active), waiting,
                c.active, c.idle, c.used, c.tested, c.login, waitedMicros / 1_000_000, waitedMicros % 1_000_000,
                pool.config().poolMode().configName());
    }

    /** SHOW SERVERS for this pool: its server connections in any state but closing, at this moment. */
    public List<ServerSnapshot<S>> serverSnapshots() {
        long now = pool.clock().nanoTime();
        long checkDelay = pool.config().serverCheckDelayNanos();
        List<ServerSnapshot<S>> rows = new ArrayList<>();
        for (PooledServer<S> s : servers.members()) {
            String state;
            switch (s.state()) {
                case PooledServer.ACTIVE:
                    state = "active";
                    break;
                case PooledServer.IDLE:
                    state = s.needsCheck(now, checkDelay) ? "used" : "idle";
                    break;
                case PooledServer.TESTED:
                    state = "tested";
                    break;
                case PooledServer.LOGIN:
                    state = "login";
                    break;
                default:
                    continue;
            }
            rows.add(new ServerSnapshot<>(s.id(), s.connection, state, s.connectedAtNanos, s.lastUsedNanos,
                    s.evictedBecause != null));
        }
        return rows;
    }

    /** Idle server connections, tested before reuse or not. */
    public int idleServers() {
        return count(pool.clock().nanoTime()).unused();
    }

    /** Server connections lent to a client, or being tested or reset. */
    public int serversInUse() {
        return count(pool.clock().nanoTime()).inUse();
    }

    /** Server connections being tested or reset (SHOW POOLS' sv_tested). */
    public int testedServers() {
        return count(pool.clock().nanoTime()).tested;
    }

    /** Server connections open or opening: every state but closed. */
    public int totalServers() {
        return pool.serverCount();
    }

    /** Server connections logging in (sv_login). */
    public int loginServers() {
        return pool.loginsInProgress();
    }

    /** Clients waiting for a server connection (cl_waiting). */
    public int waitingClients() {
        return waiters.size() + pool.dedicatedWaiting();
    }

    /** Clients connected and not waiting (cl_active). */
    public int activeClients() {
        int waiting = waitingClients();
        return activeClients(waiting, count(pool.clock().nanoTime()).active);
    }

    /**
     * A client linked to a server for its whole life (see {@link ClientAdmission#UNCOUNTED}) is not counted
     * as a client, so the servers lent out are a floor.
     */
    private int activeClients(int waiting, int activeServers) {
        return Math.max((int) pool.clientCount() - waiting, activeServers);
    }

    /** How long the oldest waiting client has waited; 0 when none waits. */
    public long maxWaitMicros() {
        return maxWaitMicros(pool.clock().nanoTime());
    }

    private long maxWaitMicros(long now) {
        Waiter<S> oldest = waiters.oldest();
        return oldest == null ? 0 : Math.max(0, (now - oldest.enqueuedNanos) / 1000);
    }

    private ServerCounts count(long now) {
        return servers.count(now, pool.config().serverCheckDelayNanos());
    }
}
