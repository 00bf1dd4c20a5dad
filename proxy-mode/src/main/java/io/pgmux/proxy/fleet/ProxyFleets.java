package io.pgmux.proxy.fleet;

import io.pgmux.core.fleet.FleetCoordinator;
import io.pgmux.core.fleet.PostgresFleetCoordinator;
import io.pgmux.core.pool.Pool;
import io.pgmux.core.pool.PoolFleetMember;
import io.pgmux.core.pool.PoolKey;
import io.pgmux.core.pool.PoolListener;
import io.pgmux.core.pool.ServerConnector;
import io.pgmux.proxy.server.ServerConnection;
import io.pgmux.proxy.server.ServerFleetSession;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proxy's pools as fleet members: the pool of a database with a fleet joins it when it is made, and leaves it
 * when it is removed (RELOAD, pool_idle_timeout) or the proxy shuts down; a RELOAD that changes the fleet has its
 * pools leave and join again. Joining waits for the server, and pools are made on event loops: joins and leaves run
 * on a thread of their own, one at a time, and a pool holds no server until its first share.
 */
public final class ProxyFleets implements PoolListener<ServerConnection> {
    static final long IDLE_SECONDS = 10;
    private static final Logger log = LoggerFactory.getLogger(ProxyFleets.class);

    private final Function<String, String> entryNames;
    private final Function<PoolKey, ServerConnector<ServerConnection>> connectors;
    /** The [databases] entries' fleets in effect. */
    private volatile Map<String, FleetSetting> byDatabase = Map.of();
    /** One task at a time, in order; its thread ends when idle, as most proxies have no fleet. */
    private final ThreadPoolExecutor work = new ThreadPoolExecutor(1, 1, IDLE_SECONDS, TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(), r -> {
                Thread t = new Thread(r, "pgmux-fleet-members");
                t.setDaemon(true);
                return t;
            });
    /** Read and written by {@link #work}'s tasks only, one at a time. */
    private final Map<Pool<ServerConnection>, Member> members = new HashMap<>();

    private record Member(FleetSetting setting, FleetCoordinator coordinator) {
    }

    /**
     * @param entryNames the [databases] entry whose settings a database takes (the {@code *} entry's for an
     *     auto-database)
     * @param connectors the connector of a pool, which opens its coordination connection
     */
    public ProxyFleets(Function<String, String> entryNames,
            Function<PoolKey, ServerConnector<ServerConnection>> connectors) {
        this.entryNames = Objects.requireNonNull(entryNames, "entryNames");
        this.connectors = Objects.requireNonNull(connectors, "connectors");
        work.allowCoreThreadTimeOut(true);
    }

    private FleetSetting fleetOf(Pool<ServerConnection> pool) {
        return byDatabase.get(entryNames.apply(pool.key().database()));
    }

    @Override
    public void created(Pool<ServerConnection> pool) {
        FleetSetting fleet = fleetOf(pool);
        if (fleet != null) {
            // nothing opens before the first share: the event loop that made the pool does not wait for it
            pool.fleetCap(0);
            submit(() -> join(pool, fleet));
        }
    }

    @Override
    public void removed(Pool<ServerConnection> pool) {
        submit(() -> leave(pool));
    }

    /**
     * Start and RELOAD: {@code fleets} by [databases] entry from now on; those of {@code pools} whose fleet changed
     * leave the one they are in and join the new one.
     */
    public void configure(Map<String, FleetSetting> fleets, Collection<Pool<ServerConnection>> pools) {
        byDatabase = Map.copyOf(fleets);
        List<Pool<ServerConnection>> all = new ArrayList<>(pools);
        submit(() -> {
            for (Pool<ServerConnection> pool : all) {
                FleetSetting now = fleetOf(pool);
                Member member = members.get(pool);
                if (Objects.equals(member == null ? null : member.setting(), now)) {
                    continue;
                }
                leave(pool);
                if (now == null) {
                    pool.fleetCap(Integer.MAX_VALUE);
                    pool.fleetStatus(null);
                    log.info("fleet {}: pool {} left it (RELOAD)", member.setting().name(), pool.name());
                } else {
                    join(pool, now);
                }
            }
        });
    }

    private void submit(Runnable task) {
        try {
            work.execute(task);
        } catch (RejectedExecutionException e) {
            // shut down: every member has left
        }
    }

    private void join(Pool<ServerConnection> pool, FleetSetting fleet) {
        if (pool.isClosed()) {
            return;
        }
        PoolKey key = pool.key();
        PostgresFleetCoordinator coordinator = new PostgresFleetCoordinator(fleet.name(), fleet.maxServers(),
                key.database(), key.user(), ServerFleetSession.through(connectors.apply(key), key));
        try {
            coordinator.join(new PoolFleetMember(pool));
            members.put(pool, new Member(fleet, coordinator));
        } catch (RuntimeException e) {
            // never an unbounded pool, never one held at 0 for good
            log.warn("fleet {}: pool {} could not join ({}); it holds at most the fleet's {} server connections",
                    fleet.name(), pool.name(), e.getMessage(), fleet.maxServers());
            coordinator.close();
            pool.fleetCap(fleet.maxServers());
        }
    }

    private void leave(Pool<ServerConnection> pool) {
        Member member = members.remove(pool);
        if (member != null) {
            member.coordinator().close();
        }
    }

    /** Shutdown, after the registry closed its pools: waits for their members to leave. */
    public void close() {
        work.shutdown();
        try {
            if (!work.awaitTermination(5, TimeUnit.SECONDS)) {
                work.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
