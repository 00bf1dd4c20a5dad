package io.pgmux.proxy.auth;

import java.util.Objects;

/**
 * PgBouncer's auth_query, auth_user and auth_dbname for one database: how a user missing from the auth file is
 * looked up on the server. The query runs as {@code user} in {@code dbname} (null: the client's database) and
 * returns the user's name and stored secret, one row, or none for an unknown user.
 *
 * @param user the user the query runs as, its password from the auth file
 * @param query the query, with {@code $1} standing for the user name
 * @param dbname the [databases] entry it runs in, or null for the client's own
 */
public record AuthQuery(String user, String query, String dbname) {
    /** PgBouncer 1.25's default auth_query. */
    public static final String DEFAULT_QUERY = "SELECT rolname, CASE WHEN rolvaliduntil < now() THEN NULL ELSE"
            + " rolpassword END FROM pg_authid WHERE rolname=$1 AND rolcanlogin";

    public AuthQuery {
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(query, "query");
    }

    /** The database the query runs in for a client of {@code clientDatabase}. */
    public String database(String clientDatabase) {
        return dbname != null ? dbname : clientDatabase;
    }

    /**
     * Whether the query names the user as {@code $1} (not followed by a digit): the name is then sent as that Bind
     * parameter, never in the SQL text, which the server reads under whatever client_encoding and
     * backslash_quote the last client of its connection left.
     */
    public boolean takesUserName() {
        for (int at = query.indexOf("$1"); at >= 0; at = query.indexOf("$1", at + 2)) {
            if (at + 2 >= query.length() || !Character.isDigit(query.charAt(at + 2))) {
                return true;
            }
        }
        return false;
    }
}
