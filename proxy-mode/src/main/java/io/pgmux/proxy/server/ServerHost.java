package io.pgmux.proxy.server;

import java.util.Objects;

/**
 * One entry of a database's host list: a host name or address and its port; for a host starting with {@code /},
 * the directory of the server's Unix socket {@code .s.PGSQL.<port>}; for one starting with {@code @}, that socket
 * in Linux's abstract namespace, as PostgreSQL names it there. A {@code [databases]} entry without host is PgBouncer's
 * default, the socket in unix_socket_dir: {@link #unset} until {@link #inSocketDirectory} names the directory, and
 * {@code set} false after, so that SHOW DATABASES still shows no host.
 *
 * @param set false for the unix_socket_dir default, whose host is that directory, or empty when there is none
 */
public record ServerHost(String host, int port, boolean set) {

    public ServerHost {
        Objects.requireNonNull(host, "host");
        if (set && host.isEmpty()) {
            throw new IllegalArgumentException("empty host name");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be 1 to 65535, not " + port);
        }
    }

    public ServerHost(String host, int port) {
        this(host, port, true);
    }

    /** An entry without host: the socket in unix_socket_dir, once {@link #inSocketDirectory} names it. */
    public static ServerHost unset(int port) {
        return new ServerHost("", port, false);
    }

    /** This host, or for an unset one the socket in {@code unixSocketDir} (empty when the proxy has none). */
    public ServerHost inSocketDirectory(String unixSocketDir) {
        return set ? this : new ServerHost(unixSocketDir, port, false);
    }

    public boolean isUnixSocket() {
        return !set || host.startsWith("/") || isAbstract();
    }

    /** A socket in Linux's abstract namespace, {@code @name}. */
    public boolean isAbstract() {
        return host.startsWith("@");
    }

    /**
     * The socket file of a Unix-socket host, as libpq and PgBouncer name it; for {@code @name},
     * {@code @name/.s.PGSQL.<port>} with the {@code @} the caller turns into the NUL byte of the abstract namespace.
     */
    public String socketPath() {
        return (host.endsWith("/") ? host : host + "/") + ".s.PGSQL." + port;
    }

    @Override
    public String toString() {
        if (host.isEmpty()) {
            return "the Unix socket of port " + port + " (unix_socket_dir is empty)";
        }
        return isUnixSocket() ? socketPath() : host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
}
