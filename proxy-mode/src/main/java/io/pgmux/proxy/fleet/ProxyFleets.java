package io.pgmux.proxy.fleet;

import io.pgmux.core.fleet.PostgresFleetCoordinator;
import io.pgmux.core.pool.Failures;
import io.pgmux.core.pool.Pool;
import io.pgmux.core.pool.PoolFleetMember;
import io.pgmux.core.pool.PoolKey;
import io.pgmux.core.pool.PoolListener;
import io.pgmux.core.pool.ServerConnector;
import io.pgmux.proxy.server.ServerConnection;
import io.pgmux.proxy.server.ServerFleetSession;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proxy's pools as fleet members: the pool of a database with a fleet joins it when it is made, and leaves it
 * when it is removed (RELOAD, pool_idle_timeout) or the proxy shuts down; a RELOAD that changes the fleet has its
 * pools leave and join again. Joining waits for the server, and pools are made on event loops: each join runs on
 * the proxy's blocking work, apart from the others, so that a server that does not answer delays no other pool's
 * first share, and a pool holds no server until its own. The heartbeats of a fleet's members run on one thread of
 * the fleet's ({@code pgmux-fleet-<fleet>}), there while it has members.
 */
public final class ProxyFleets implements PoolListener<ServerConnection> {
    private static final Logger log = LoggerFactory.getLogger(ProxyFleets.class);
    /** How long a fleet's thread stays without members before it ends. */
    private static final long IDLE_SECONDS = 30;

    private final Function<String, String> entryNames;
    private final Function<PoolKey, ServerConnector<ServerConnection>> connectors;
    private final Executor joining;
    /** The [databases] entries' fleets in effect. */
    private volatile Map<String, FleetSetting> byDatabase = Map.of();
    /** Changed under this object's lock, so that a pool made during a RELOAD joins once. */
    private final Map<Pool<ServerConnection>, Member> members = new HashMap<>();
    private final Map<String, ScheduledThreadPoolExecutor> threads = new ConcurrentHashMap<>();
    /** Leaves not yet done, which shutdown waits for. */
    private final Set<CompletableFuture<Void>> leaving = ConcurrentHashMap.newKeySet();

    private record Member(FleetSetting setting, PostgresFleetCoordinator coordinator) {
    }

    /**
     * @param entryNames the [databases] entry whose settings a database takes (the {@code *} entry's for an
     *     auto-database)
     * @param connectors the connector of a pool, which opens its coordination connection
     * @param joining where joins run (the proxy's blocking work)
     */
    public ProxyFleets(Function<String, String> entryNames,
            Function<PoolKey, ServerConnector<ServerConnection>> connectors, Executor joining) {
        this.entryNames = Objects.requireNonNull(entryNames, "entryNames");
        this.connectors = Objects.requireNonNull(connectors, "connectors");
        this.joining = Objects.requireNonNull(joining, "joining");
    }

    private FleetSetting fleetOf(Pool<ServerConnection> pool) {
        return byDatabase.get(entryNames.apply(pool.key().database()));
    }

    @Override
    public synchronized void created(Pool<ServerConnection> pool) {
        FleetSetting fleet = fleetOf(pool);
        if (fleet != null) {
            // nothing opens before the first share: the event loop that made the pool does not wait for it
            pool.fleetCap(0);
            join(pool, fleet);
        }
    }

    @Override
    public synchronized void removed(Pool<ServerConnection> pool) {
        leave(pool);
    }

    /**
     * Start and RELOAD: {@code fleets} by [databases] entry from now on; those of {@code pools} whose fleet changed
     * leave the one they are in and join the new one.
     */
    public synchronized void configure(Map<String, FleetSetting> fleets, Collection<Pool<ServerConnection>> pools) {
        byDatabase = Map.copyOf(fleets);
        for (Pool<ServerConnection> pool : pools) {
            FleetSetting now = fleetOf(pool);
            Member member = members.get(pool);
            if (Objects.equals(member == null ? null : member.setting(), now)) {
                continue;
            }
            // after the member's last heartbeat, which would set the pool's cap and status again
            CompletableFuture<Void> left = leave(pool);
            if (now == null) {
                left.whenComplete((v, e) -> {
                    pool.fleetCap(Integer.MAX_VALUE);
                    pool.fleetStatus(null);
                    log.info("fleet {}: pool {} left it (RELOAD)", member.setting().name(), pool.name());
                });
            } else {
                left.whenComplete((v, e) -> rejoin(pool, now));
            }
        }
    }

    private synchronized void rejoin(Pool<ServerConnection> pool, FleetSetting fleet) {
        if (!members.containsKey(pool) && Objects.equals(fleetOf(pool), fleet)) {
            join(pool, fleet);
        }
    }

    private void join(Pool<ServerConnection> pool, FleetSetting fleet) {
        if (pool.isClosed()) {
            return;
        }
        PoolKey key = pool.key();
        PostgresFleetCoordinator coordinator = new PostgresFleetCoordinator(fleet.name(), fleet.maxServers(),
                key.database(), key.user(), ServerFleetSession.through(connectors.apply(key), key),
                threads.computeIfAbsent(fleet.name(), ProxyFleets::thread));
        members.put(pool, new Member(fleet, coordinator));
        try {
            coordinator.join(new PoolFleetMember(pool), joining).whenComplete((joined, e) -> {
                if (e != null) {
                    // never an unbounded pool, never one held at 0 for good
                    log.warn("fleet {}: pool {} could not join ({}); it holds at most the fleet's {} server"
                            + " connections", fleet.name(), pool.name(), Failures.cause(e).getMessage(),
                            fleet.maxServers());
                    pool.fleetCap(fleet.maxServers());
                }
            });
        } catch (RejectedExecutionException e) {
            // shut down: every member has left
            members.remove(pool);
        }
    }

    private static ScheduledThreadPoolExecutor thread(String fleet) {
        ScheduledThreadPoolExecutor thread = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "pgmux-fleet-" + fleet);
            t.setDaemon(true);
            return t;
        });
        thread.setKeepAliveTime(IDLE_SECONDS, TimeUnit.SECONDS);
        thread.allowCoreThreadTimeOut(true);
        thread.setRemoveOnCancelPolicy(true);
        return thread;
    }

    /** @return done once the pool's member, if any, has left */
    private CompletableFuture<Void> leave(Pool<ServerConnection> pool) {
        Member member = members.remove(pool);
        if (member == null) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> left = member.coordinator().leave();
        leaving.add(left);
        left.whenComplete((v, e) -> leaving.remove(left));
        return left;
    }

    /** Shutdown, after the registry closed its pools: waits for their members to leave. */
    public void close() {
        try {
            CompletableFuture.allOf(leaving.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // a member that could not leave is counted dead by the others
        }
        threads.values().forEach(ScheduledThreadPoolExecutor::shutdownNow);
    }
}
