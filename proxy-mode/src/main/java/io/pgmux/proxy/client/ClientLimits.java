package io.pgmux.proxy.client;

import io.pgmux.core.pool.ConnectionLimit;
import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.protocol.PoolerError;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * PgBouncer's max_db_client_connections and max_user_client_connections: the clients of each database (the name
 * the client connected to) and of each user (the name it logged in as), counted from admission until they leave,
 * each limited by its entry's own value when above 0, else the global one (0 = unlimited). RELOAD sets new limits;
 * clients already in keep their slot, as in PgBouncer.
 */
public final class ClientLimits {
    private final Map<String, ConnectionLimit> byDatabase = new ConcurrentHashMap<>();
    private final Map<String, ConnectionLimit> byUser = new ConcurrentHashMap<>();
    private volatile Limits limits = new Limits(0, Map.of(), 0, Map.of());

    private record Limits(int database, Map<String, Integer> databases, int user, Map<String, Integer> users) {
    }

    /**
     * @param databaseMax the global max_db_client_connections
     * @param databases the [databases] entries' own values
     * @param userMax the global max_user_client_connections
     * @param users the [users] entries' own values
     */
    public void configure(int databaseMax, Map<String, Integer> databases, int userMax, Map<String, Integer> users) {
        limits = new Limits(databaseMax, Map.copyOf(databases), userMax, Map.copyOf(users));
    }

    /** The limit of {@code database}'s clients, as SHOW DATABASES shows it (0 = unlimited). */
    public int databaseMax(String database) {
        Limits l = limits;
        return effective(l.databases.get(database), l.database);
    }

    /** The limit of {@code user}'s clients, as SHOW USERS shows it (0 = unlimited). */
    public int userMax(String user) {
        Limits l = limits;
        return effective(l.users.get(user), l.user);
    }

    /** The users whose [users] entry sets max_user_client_connections. */
    public Set<String> usersWithOwnLimit() {
        return limits.users.keySet();
    }

    /** The users clients have logged in as, counted now or before: PgBouncer keeps knowing a user once seen. */
    public Set<String> usersSeen() {
        return Collections.unmodifiableSet(byUser.keySet());
    }

    public int databaseClients(String database) {
        ConnectionLimit count = byDatabase.get(database);
        return count == null ? 0 : count.count();
    }

    public int userClients(String user) {
        ConnectionLimit count = byUser.get(user);
        return count == null ? 0 : count.count();
    }

    /**
     * Counts a client of {@code database} logged in as {@code user}, or refuses it with PgBouncer's error when
     * either is at its limit (the database checked first, as PgBouncer does); a client counted must be
     * {@link #leave}-d once.
     */
    ErrorResponse admit(String database, String user) {
        ConnectionLimit clients = byDatabase.computeIfAbsent(database, k -> new ConnectionLimit());
        if (!clients.tryAcquire(databaseMax(database))) {
            return PoolerError.maxDbClientConnections();
        }
        if (!byUser.computeIfAbsent(user, k -> new ConnectionLimit()).tryAcquire(userMax(user))) {
            clients.release();
            return PoolerError.maxUserClientConnections();
        }
        return null;
    }

    /**
     * PgBouncer's refusal of a console session over a client limit, or null: {@code consoleClients} are the
     * console's sessions, {@code userConsoleClients} those of {@code user}, which the console counts itself.
     */
    public ErrorResponse consoleOverLimit(String database, int consoleClients, String user, int userConsoleClients) {
        int databaseMax = databaseMax(database);
        if (databaseMax > 0 && consoleClients >= databaseMax) {
            return PoolerError.maxDbClientConnections();
        }
        int userMax = userMax(user);
        if (userMax > 0 && userClients(user) + userConsoleClients >= userMax) {
            return PoolerError.maxUserClientConnections();
        }
        return null;
    }

    /** A client {@link #admit}-ted left. */
    void leave(String database, String user) {
        byDatabase.get(database).release();
        byUser.get(user).release();
    }

    private static int effective(Integer own, int global) {
        return own != null && own > 0 ? own : global;
    }
}
