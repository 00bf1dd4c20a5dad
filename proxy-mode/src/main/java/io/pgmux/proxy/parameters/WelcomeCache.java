package io.pgmux.proxy.parameters;

import io.pgmux.core.pool.PoolKey;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The parameters a server of each pool reported at login, which the pool's new clients are told in their
 * welcome (PgBouncer keeps them per pool too): only a pool's first client waits for a server connection to
 * learn them.
 */
public final class WelcomeCache {
    private final Map<PoolKey, Map<String, String>> byPool = new ConcurrentHashMap<>();

    /** What the pool's servers report, or null while no client of the pool has fetched it. */
    public Map<String, String> get(PoolKey pool) {
        return byPool.get(pool);
    }

    /** Keeps what {@code server} reports for the pool, unless another client did first; returns what is kept. */
    public Map<String, String> remember(PoolKey pool, ServerParameters server) {
        Map<String, String> fetched = Map.copyOf(server.reported());
        Map<String, String> earlier = byPool.putIfAbsent(pool, fetched);
        return earlier != null ? earlier : fetched;
    }
}
