package io.pgmux.core.pool;

import java.util.Objects;

/** Pools are per (database, user), as in PgBouncer. */
public final class PoolKey {
    private final String database;
    private final String user;
    private final int hash;

    public PoolKey(String database, String user) {
        this.database = Objects.requireNonNull(database, "database");
        this.user = Objects.requireNonNull(user, "user");
        this.hash = 31 * database.hashCode() + user.hashCode();
    }

    public String database() {
        return database;
    }

    public String user() {
        return user;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof PoolKey)) {
            return false;
        }
        PoolKey other = (PoolKey) o;
        return database.equals(other.database) && user.equals(other.user);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return database + "/" + user;
    }
}
