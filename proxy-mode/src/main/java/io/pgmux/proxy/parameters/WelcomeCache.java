package io.pgmux.proxy.parameters;

import io.pgmux.core.pool.PoolKey;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The parameters a server of each pool reported at login, which the pool's new clients are told in their
 * welcome (PgBouncer keeps them per pool too): only a pool's first client waits for a server connection to
 * learn them; and the startup settings a server of the pool took, which a later login need not try again.
 */
public final class WelcomeCache {
    /** How many startup settings with their values each pool remembers as applied without error. */
    public static final int CHECKED_LIMIT = 4096;

    private final Map<PoolKey, Map<String, String>> byPool = new ConcurrentHashMap<>();
    private final Map<PoolKey, Map<String, String>> checkedByPool = new ConcurrentHashMap<>();
    private final Map<PoolKey, AtomicReference<String[]>> lastWelcomedByPool = new ConcurrentHashMap<>();

    /** What the pool's servers report, or null while no client of the pool has fetched it. */
    public Map<String, String> get(PoolKey pool) {
        return byPool.get(pool);
    }

    /**
     * The startup settings ({@code name=value}, as asked) a server of the pool applied without error, which a login
     * with the same need not try again, each with the value the server then reported for it: live, for
     * {@link ClientParameters#checked}.
     */
    public Map<String, String> checked(PoolKey pool) {
        return checkedByPool.computeIfAbsent(pool, key -> new ConcurrentHashMap<>());
    }

    /**
     * The values the pool's last client was told at its welcome, which the next one told the same shares
     * ({@link ClientParameters#welcome(Map, Map, AtomicReference)}): clients of one application all ask for the same.
     */
    public AtomicReference<String[]> lastWelcomed(PoolKey pool) {
        return lastWelcomedByPool.computeIfAbsent(pool, key -> new AtomicReference<>());
    }

    /**
     * Keeps what {@code server} reports for the pool, unless another client did first; returns what is kept. Those
     * values are the session a server starts with, so a login that asks for them has nothing to try.
     */
    public Map<String, String> remember(PoolKey pool, ServerParameters server) {
        Map<String, String> fetched = Map.copyOf(server.reported());
        Map<String, String> earlier = byPool.putIfAbsent(pool, fetched);
        if (earlier != null) {
            return earlier;
        }
        Map<String, String> checked = checked(pool);
        fetched.forEach((name, value) -> checked.put(name + '=' + value, value));
        return fetched;
    }
}
