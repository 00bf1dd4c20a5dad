package io.pgmux.proxy.server;

import java.util.Objects;

/**
 * Where a database of the proxy lives, as one line of PgBouncer's {@code [databases]}: host, port, the real
 * database name and, optionally, the user and password the pooler logs in with (when absent, the client's
 * user and its secret from the auth file) and the sslmode of its server connections (when null, the proxy's
 * server_tls_sslmode).
 */
public record ServerTarget(String host, int port, String dbname, String user, String password, TlsMode tlsMode) {

    public ServerTarget {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(dbname, "dbname");
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be 1 to 65535, not " + port);
        }
    }

    /** This target with {@code mode} when it names no sslmode of its own. */
    public ServerTarget withDefaultTlsMode(TlsMode mode) {
        return tlsMode != null ? this : new ServerTarget(host, port, dbname, user, password, mode);
    }

    /** The user to log in as for a client logged in as {@code clientUser}. */
    public String loginUser(String clientUser) {
        return user != null && !user.isEmpty() ? user : clientUser;
    }

    /** No password in the string form: it ends up in logs. */
    @Override
    public String toString() {
        return "host=" + host + " port=" + port + " dbname=" + dbname + (user != null ? " user=" + user : "")
                + (tlsMode != null ? " sslmode=" + tlsMode : "");
    }
}
