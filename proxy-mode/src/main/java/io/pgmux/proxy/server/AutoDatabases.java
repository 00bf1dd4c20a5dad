package io.pgmux.proxy.server;

import io.pgmux.core.pool.Pool;
import io.pgmux.core.pool.PoolRegistry;
import io.pgmux.core.pool.PoolView;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PgBouncer's auto-databases: a client asking for a database that {@code [databases]} does not list gets one made
 * from the {@code *} entry, as if the entry were written under the name asked for (its dbname, unless the entry
 * sets one, is that name). Such a database is dropped, pools and statistics, once none of its pools has had a
 * client or a server connection for autodb_idle_timeout. Its pool settings, auth_query and pin_session_state are
 * the {@code *} entry's. As in PgBouncer, SHOW DATABASES lists an auto-database while it is in use: from the
 * first janitor pass that finds none of its pools with a client or a server connection, it is idle and not listed.
 */
public final class AutoDatabases {
    /** The name of the fallback entry in {@code [databases]}. */
    public static final String FALLBACK = "*";
    private static final Logger log = LoggerFactory.getLogger(AutoDatabases.class);

    /** The {@code *} entry with server_tls_sslmode applied; null without one. */
    private volatile ServerTarget fallback;
    /** The names [databases] lists. */
    private volatile Set<String> listed;
    private volatile long idleTimeoutNanos;
    /** Each auto-database by name, with when it was last seen in use (System.nanoTime()). */
    private final Map<String, Long> lastUsed = new ConcurrentHashMap<>();
    /** The auto-databases the last janitor pass found unused. */
    private final Set<String> idle = ConcurrentHashMap.newKeySet();

    /** @param configured the [databases] entries, with server_tls_sslmode applied, the {@code *} entry among them */
    public AutoDatabases(Map<String, ServerTarget> configured, Duration idleTimeout) {
        this.fallback = configured.get(FALLBACK);
        this.listed = Set.copyOf(configured.keySet());
        idleTimeout(idleTimeout);
    }

    /** autodb_idle_timeout; 0 keeps them for ever. */
    public void idleTimeout(Duration timeout) {
        this.idleTimeoutNanos = timeout.toNanos();
    }

    /**
     * RELOAD: the [databases] entries of now. A {@code *} entry that changed moves the auto-databases to it; one
     * that is gone is kept, as PgBouncer keeps it until a restart. A name now listed is no auto-database any more.
     *
     * @return the auto-databases whose target changed, whose servers the caller closes once released
     */
    public Set<String> reloaded(Map<String, ServerTarget> configured) {
        ServerTarget before = fallback;
        ServerTarget now = configured.get(FALLBACK);
        Set<String> changed = new TreeSet<>();
        if (now == null) {
            if (before != null) {
                log.warn("RELOAD: the {} database stays in use until a restart, as in PgBouncer", FALLBACK);
            }
        } else {
            fallback = now;
            if (before != null && !before.equals(now)) {
                changed.addAll(lastUsed.keySet());
            }
        }
        listed = Set.copyOf(configured.keySet());
        for (String name : lastUsed.keySet()) {
            if (listed.contains(name) && lastUsed.remove(name) != null) {
                idle.remove(name);
                changed.add(name);
            }
        }
        return changed;
    }

    /** {@code configured} without the {@code *} entry: the databases listed as such. */
    public static Map<String, ServerTarget> listed(Map<String, ServerTarget> configured) {
        if (!configured.containsKey(FALLBACK)) {
            return configured;
        }
        Map<String, ServerTarget> listed = new LinkedHashMap<>(configured);
        listed.remove(FALLBACK);
        return Map.copyOf(listed);
    }

    /**
     * The database a client asks for by {@code name}, made from the {@code *} entry and kept as in use now; null
     * without a {@code *} entry.
     */
    public ServerTarget register(String name) {
        ServerTarget template = fallback;
        if (template == null) {
            return null;
        }
        if (lastUsed.put(name, System.nanoTime()) == null) {
            log.info("registered new auto-database: {}", name);
        }
        idle.remove(name);
        return named(template, name);
    }

    /** Where the auto-database {@code name} lives, whether or not it is registered; null without a {@code *} entry. */
    public ServerTarget target(String name) {
        ServerTarget template = fallback;
        return template == null ? null : named(template, name);
    }

    /** A dbname of {@code *} (the entry's default, its own name) stands for the name the client asked for. */
    private static ServerTarget named(ServerTarget template, String name) {
        return !template.dbname().equals(FALLBACK) ? template
                : new ServerTarget(template.hosts(), name, template.user(), template.password(), template.tlsMode(),
                        template.loadBalanceHosts(), template.targetSessionAttrs(), ServerSetup.NONE,
                        template.passwordSource());
    }

    /**
     * The [databases] entry whose settings (pool settings, auth_query, pin_session_state) apply to
     * {@code database}: its own, or the {@code *} entry when it is not listed.
     */
    public String entryName(String database) {
        return fallback == null || listed.contains(database) ? database : FALLBACK;
    }

    /** {@code listed} with the auto-databases in use added, as SHOW DATABASES lists them. */
    public Map<String, ServerTarget> withAuto(Map<String, ServerTarget> listed) {
        ServerTarget template = fallback;
        if (template == null || lastUsed.isEmpty()) {
            return listed;
        }
        Map<String, ServerTarget> all = new LinkedHashMap<>(listed);
        for (String name : lastUsed.keySet()) {
            if (!idle.contains(name)) {
                all.putIfAbsent(name, named(template, name));
            }
        }
        return all;
    }

    /**
     * A janitor pass: an auto-database whose pools have a client or a server connection is in use now, another is
     * idle; one idle for autodb_idle_timeout (when above 0) is dropped, its pools closed, and {@code dropped} told
     * its name.
     */
    public void dropIdle(PoolRegistry<?> registry, Consumer<String> dropped) {
        if (lastUsed.isEmpty()) {
            return;
        }
        long timeout = idleTimeoutNanos;
        long now = System.nanoTime();
        Set<String> inUse = new HashSet<>();
        for (Pool<?> pool : registry.pools()) {
            String database = pool.key().database();
            PoolView<?> view = pool.view();
            if (lastUsed.containsKey(database)
                    && view.activeClients() + view.waitingClients() + view.totalServers() > 0) {
                inUse.add(database);
            }
        }
        for (String name : lastUsed.keySet()) {
            if (inUse.contains(name)) {
                lastUsed.put(name, now);
                idle.remove(name);
                continue;
            }
            idle.add(name);
            if (timeout > 0 && now - lastUsed.getOrDefault(name, now) > timeout
                    && lastUsed.computeIfPresent(name, (n, at) -> now - at > timeout ? null : at) == null) {
                idle.remove(name);
                log.warn("dropping database '{}' as it does not exist anymore or inactive auto-database", name);
                registry.removeDatabase(name);
                dropped.accept(name);
            }
        }
    }
}
