package io.pgmux.proxy.auth;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The secrets auth_query returned, per database and user, as PgBouncer keeps the users it looked up on their
 * database: the pooler's logins to servers for such a user take its secret from here. The query runs again at
 * each login and an unchanged secret keeps its instance, so the SCRAM keys a client left on a verifier
 * (passthrough) survive; a changed one replaces it.
 */
public final class QueriedUsers {
    private record Entry(String stored, Secret secret) {
    }

    private final Map<String, Map<String, Entry>> byDatabase = new ConcurrentHashMap<>();

    /**
     * Remembers what the query returned for {@code user} of {@code database}.
     *
     * @return the secret to authenticate the client against
     * @throws IllegalArgumentException for a malformed SCRAM verifier (the message does not include it)
     */
    public Secret remember(String database, String user, String stored) {
        Map<String, Entry> users = byDatabase.computeIfAbsent(database, d -> new ConcurrentHashMap<>());
        return users.compute(user, (u, known) ->
                known != null && known.stored.equals(stored) ? known : new Entry(stored, Secret.parse(stored))).secret;
    }

    /** The user is unknown now (no row, or a NULL secret): the pooler no longer logs in with the old secret. */
    public void forget(String database, String user) {
        Map<String, Entry> users = byDatabase.get(database);
        if (users != null) {
            users.remove(user);
        }
    }

    /** The secret auth_query last returned for {@code user} of {@code database}, or null. */
    public Secret find(String database, String user) {
        Map<String, Entry> users = byDatabase.get(database);
        Entry entry = users == null ? null : users.get(user);
        return entry == null ? null : entry.secret;
    }
}
