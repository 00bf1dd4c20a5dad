package io.pgmux.core.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Pool settings that differ from a pooler's global ones for one database or one user, as PgBouncer's
 * {@code [databases]} and {@code [users]} entries make them. The pool of (database, user) takes the global
 * settings, then its database's, then its user's: a user's pool_size or pool_mode wins over its database's,
 * as PgBouncer documents. Immutable; kept apart from the global {@link PoolConfig} so that a RELOAD of the
 * globals keeps them on top.
 */
public final class PoolOverrides {
    private static final PoolOverrides NONE = new PoolOverrides(Map.of(), Map.of());

    /** Per database, then per user: setting name as written to its text value (parsed once by the builder). */
    private final Map<String, Map<String, String>> databases;
    private final Map<String, Map<String, String>> users;

    private PoolOverrides(Map<String, Map<String, String>> databases, Map<String, Map<String, String>> users) {
        this.databases = databases;
        this.users = users;
    }

    public static PoolOverrides none() {
        return NONE;
    }

    public static Builder builder() {
        return new Builder();
    }

    public boolean isEmpty() {
        return databases.isEmpty() && users.isEmpty();
    }

    /** The settings of the pool of ({@code database}, {@code user}); {@code global} itself when nothing differs. */
    public PoolConfig apply(PoolConfig global, String database, String user) {
        Map<String, String> db = database == null ? Map.of() : databases.getOrDefault(database, Map.of());
        Map<String, String> u = user == null ? Map.of() : users.getOrDefault(user, Map.of());
        if (db.isEmpty() && u.isEmpty()) {
            return global;
        }
        return global.toBuilder().setAll(db).setAll(u).build();
    }

    /** {@code global} with only {@code database}'s own settings on top (SHOW DATABASES). */
    public PoolConfig forDatabase(PoolConfig global, String database) {
        return apply(global, database, null);
    }

    /** {@code global} with only {@code user}'s own settings on top (SHOW USERS). */
    public PoolConfig forUser(PoolConfig global, String user) {
        return apply(global, null, user);
    }

    /** The databases given settings of their own, in the order they were given. */
    public Set<String> databases() {
        return databases.keySet();
    }

    /** The settings given for {@code database}, by the names they were given under. */
    public Map<String, String> database(String database) {
        return Collections.unmodifiableMap(databases.getOrDefault(database, Map.of()));
    }

    /** The users given settings of their own, or an entry without any, in the order they were given. */
    public Set<String> users() {
        return users.keySet();
    }

    /** The settings given for {@code user}, by the names they were given under. */
    public Map<String, String> user(String user) {
        return Collections.unmodifiableMap(users.getOrDefault(user, Map.of()));
    }

    /**
     * Builds the settings of every database, every user and every pair of them on top of {@code global}, so
     * that a combination that cannot work (min_pool_size above pool_size, …) is refused when the configuration
     * is loaded rather than when a client first needs that pool.
     *
     * @throws ConfigException naming the database and/or user whose settings do not fit
     */
    public void validate(PoolConfig global) {
        databases.keySet().forEach(db -> check(global, db, null, "database " + db));
        users.keySet().forEach(user -> check(global, null, user, "user " + user));
        for (String db : databases.keySet()) {
            for (String user : users.keySet()) {
                check(global, db, user, "database " + db + ", user " + user);
            }
        }
    }

    private void check(PoolConfig global, String database, String user, String owner) {
        try {
            apply(global, database, user);
        } catch (ConfigException e) {
            throw new ConfigException(e.setting(), owner + ": " + e.getMessage());
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PoolOverrides other && databases.equals(other.databases) && users.equals(other.users);
    }

    @Override
    public int hashCode() {
        return Objects.hash(databases, users);
    }

    @Override
    public String toString() {
        return "PoolOverrides{databases=" + databases + ", users=" + users + "}";
    }

    /** Collects per-database and per-user settings, checking each name and value as it comes. */
    public static final class Builder {
        private final Map<String, Map<String, String>> databases = new LinkedHashMap<>();
        private final Map<String, Map<String, String>> users = new LinkedHashMap<>();

        private Builder() {
        }

        /**
         * A setting of every pool of {@code database}, by any name of the setting.
         *
         * @throws ConfigException for an unknown name, a malformed value, max_client_conn (pooler-wide) or
         *     max_user_connections (a user's limit; {@link #user} takes max_db_connections no more)
         */
        public Builder database(String database, String name, String value) {
            put(databases.computeIfAbsent(Objects.requireNonNull(database, "database"), k -> new LinkedHashMap<>()),
                    checked("database " + database, name, value, ConfigKey.MAX_USER_CONNECTIONS), value);
            return this;
        }

        /** A setting of every pool of {@code user}; see {@link #database(String, String, String)}. */
        public Builder user(String user, String name, String value) {
            put(users.computeIfAbsent(Objects.requireNonNull(user, "user"), k -> new LinkedHashMap<>()),
                    checked("user " + user, name, value, ConfigKey.MAX_DB_CONNECTIONS), value);
            return this;
        }

        /** A user known with no setting of its own (PgBouncer's {@code bob =} in {@code [users]}). */
        public Builder user(String user) {
            users.computeIfAbsent(Objects.requireNonNull(user, "user"), k -> new LinkedHashMap<>());
            return this;
        }

        /** The last value of a setting wins, whichever of its names it came under. */
        private static void put(Map<String, String> settings, String name, String value) {
            ConfigKey key = ConfigKey.lookup(name);
            settings.keySet().removeIf(written -> ConfigKey.lookup(written) == key);
            settings.put(name, value);
        }

        /** @param foreign the limit that belongs to the other kind of owner (all its pools must agree on it) */
        private static String checked(String owner, String name, String value, ConfigKey foreign) {
            ConfigKey key = ConfigKey.lookup(name);
            if (key == null) {
                throw new ConfigException(name, owner + ": " + UnknownSetting.message("pool setting", name,
                        ConfigKey.nearestName(name)));
            }
            if (key == ConfigKey.MAX_CLIENT_CONN) {
                throw new ConfigException(name, owner + ": " + name + " applies to the whole pooler, not to one "
                        + "database or user");
            }
            if (key == foreign) {
                throw new ConfigException(name, owner + ": " + name + " is set per "
                        + (foreign == ConfigKey.MAX_DB_CONNECTIONS ? "database" : "user") + " or globally");
            }
            try {
                key.parse(name, value);
            } catch (ConfigException e) {
                throw new ConfigException(name, owner + ": " + e.getMessage());
            }
            return name;
        }

        public PoolOverrides build() {
            if (databases.isEmpty() && users.isEmpty()) {
                return NONE;
            }
            Map<String, Map<String, String>> dbs = new LinkedHashMap<>();
            databases.forEach((k, v) -> dbs.put(k, Collections.unmodifiableMap(new LinkedHashMap<>(v))));
            Map<String, Map<String, String>> us = new LinkedHashMap<>();
            users.forEach((k, v) -> us.put(k, Collections.unmodifiableMap(new LinkedHashMap<>(v))));
            return new PoolOverrides(Collections.unmodifiableMap(dbs), Collections.unmodifiableMap(us));
        }
    }
}
