package io.pgmux.proxy.server;

import java.util.Objects;

/**
 * One entry of a database's host list: a host name or address and its port, or, for a host starting with
 * {@code /}, the directory of the server's Unix socket {@code .s.PGSQL.<port>}.
 */
public record ServerHost(String host, int port) {

    public ServerHost {
        Objects.requireNonNull(host, "host");
        if (host.isEmpty()) {
            throw new IllegalArgumentException("empty host name");
        }
        if (host.startsWith("@")) {
            throw new IllegalArgumentException("host " + host
                    + ": Unix sockets in the abstract namespace (@…) are not supported; use a socket directory");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be 1 to 65535, not " + port);
        }
    }

    public boolean isUnixSocket() {
        return host.startsWith("/");
    }

    /** The socket file of a Unix-socket host, as libpq and PgBouncer name it. */
    public String socketPath() {
        return (host.endsWith("/") ? host : host + "/") + ".s.PGSQL." + port;
    }

    @Override
    public String toString() {
        return isUnixSocket() ? socketPath() : host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
}
