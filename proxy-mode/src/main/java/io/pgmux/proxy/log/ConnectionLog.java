package io.pgmux.proxy.log;

import io.netty.util.NetUtil;
import io.pgmux.proxy.config.ProxySetting;
import io.pgmux.proxy.config.ProxySettings;
import io.pgmux.proxy.transport.ConnectionSocket;
import io.pgmux.proxy.transport.Transport;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PgBouncer's lines about clients and servers, with its prefix: {@code C-0x1a2b3c4d: app/bob@127.0.0.1:51234 } for a
 * client, {@code S-0x…: app/bob@127.0.0.1:5432 } for a server, where the hexadecimal number is the one SHOW CLIENTS
 * and SHOW SERVERS print as {@code ptr}, and a Unix socket client is {@code unix(pid):port}. log_connections,
 * log_disconnections and log_pooler_errors turn each kind on or off; RELOAD changes them.
 */
public final class ConnectionLog {
    /**
     * PgBouncer's closing reason for a server marked close_needed (RECONNECT, a changed database or server TLS
     * setting): the operator's log says why its servers went.
     */
    public static final String CONFIGURATION_CHANGED = "database configuration changed";
    private static final Logger log = LoggerFactory.getLogger(ConnectionLog.class);

    private volatile boolean connections = true;
    private volatile boolean disconnections = true;
    private volatile boolean poolerErrors = true;
    /** The listen port, which PgBouncer prints as a Unix socket client's port. */
    private volatile int unixPort;

    /** log_connections, log_disconnections and log_pooler_errors, at start and after RELOAD. */
    public void settings(ProxySettings settings) {
        connections = settings.get(ProxySetting.LOG_CONNECTIONS);
        disconnections = settings.get(ProxySetting.LOG_DISCONNECTIONS);
        poolerErrors = settings.get(ProxySetting.LOG_POOLER_ERRORS);
    }

    public void unixPort(int port) {
        this.unixPort = port;
    }

    /**
     * {@code login attempt: db=app user=bob tls=no replication=no}
     *
     * @param replication PgBouncer's word for the walsender asked for: no, database or yes
     */
    public void loginAttempt(Object client, ConnectionSocket socket, String pool, String database, String user,
            String replication) {
        if (connections) {
            log.info("{}login attempt: db={} user={} tls={} replication={}", clientPrefix(client, socket, pool, user),
                    database, user, tls(socket), replication);
        }
    }

    /** {@code login failed: db=app user=bob} */
    public void loginFailed(Object client, ConnectionSocket socket, String pool, String database, String user) {
        if (connections) {
            log.info("{}login failed: db={} user={}", clientPrefix(client, socket, pool, user), database, user);
        }
    }

    /** The OS user running the pooler reached the admin console over the Unix socket, without a password. */
    public void consoleFromUnixSocket(Object client, ConnectionSocket socket, String user) {
        if (connections) {
            log.info("{}pgbouncer access from unix socket", clientPrefix(client, socket, null, user));
        }
    }

    /** {@code closing because: client close request (age=12s)} */
    public void clientClosing(Object client, ConnectionSocket socket, String pool, String user, String reason,
            long connectedAtMillis) {
        if (disconnections) {
            log.info("{}closing because: {} (age={}s)", clientPrefix(client, socket, pool, user), reason,
                    TimeUnit.MILLISECONDS.toSeconds(System.currentTimeMillis() - connectedAtMillis));
        }
    }

    /** The FATAL or ERROR text the pooler itself sent a client, as a WARNING line. */
    public void poolerError(Object client, ConnectionSocket socket, String pool, String user, String message) {
        if (poolerErrors) {
            log.warn("{}pooler error: {}", clientPrefix(client, socket, pool, user), message);
        }
    }

    /** {@code new connection to server (from 127.0.0.1:40404)} */
    public void serverConnected(Object server, ConnectionSocket socket, String database, String user) {
        if (connections) {
            log.info("{}new connection to server (from {})", prefix('S', server, socket, database, user),
                    address(socket, socket.localAddress()));
        }
    }

    /**
     * {@code closing because: server_idle_timeout reached (age=600s)}, for a server that logged in
     * ({@code loggedInNanos}, on {@link System#nanoTime}'s clock, is not 0).
     */
    public void serverClosing(Object server, ConnectionSocket socket, String database, String user, String reason,
            long loggedInNanos) {
        if (disconnections && loggedInNanos != 0) {
            log.info("{}closing because: {} (age={}s)", prefix('S', server, socket, database, user),
                    reason, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - loggedInNanos));
        }
    }

    /**
     * {@code closing because: connect failed (age=0s)}, for a server connection that never logged in:
     * {@code target} is where it was going, as the channel may have no peer address.
     */
    public void serverNotConnected(Object server, SocketAddress target, String database, String user, String reason,
            long startedNanos) {
        if (disconnections) {
            String address = target instanceof InetSocketAddress inet
                    ? inetAddress(inet) : "unix:" + unixPort;
            log.info("S-{}: {}/{}@{} closing because: {} (age={}s)",
                    ptr(server), database == null ? "(nodb)" : database,
                    user == null ? "(nouser)" : user, address, reason,
                    TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startedNanos));
        }
    }

    /**
     * The hexadecimal number PgBouncer prints for a connection, {@code 0x1a2b3c4d}: the log lines' prefix, SHOW
     * CLIENTS' and SHOW SERVERS' {@code ptr} and {@code link}. Written out, as a Formatter would parse its pattern
     * anew for each of the two lines of every login.
     */
    public static String ptr(Object connection) {
        String hex = Integer.toHexString(System.identityHashCode(connection));
        return "0x" + "00000000".substring(hex.length()) + hex;
    }

    private String clientPrefix(Object client, ConnectionSocket socket, String pool, String user) {
        SocketAddress remote = socket.remoteAddress();
        int pid = remote instanceof InetSocketAddress ? 0 : socket.peerPid();
        return prefix('C', client, pool, user, address(remote, pid));
    }

    /** PgBouncer's log_socket_prefix: {@code C-0x1a2b3c4d: db/user@host:port }. */
    private String prefix(char type, Object id, ConnectionSocket socket, String database, String user) {
        return prefix(type, id, database, user, address(socket, socket.remoteAddress()));
    }

    private static String prefix(char type, Object id, String database, String user, String address) {
        return type + "-" + ptr(id) + ": "
                + (database == null ? "(nodb)" : database) + "/" + (user == null ? "(nouser)" : user) + "@"
                + address + " ";
    }

    /** {@code 127.0.0.1:5432}, {@code [::1]:5432}, or for a Unix socket peer {@code unix(pid):port}. */
    private String address(ConnectionSocket socket, SocketAddress address) {
        return address(address, address instanceof InetSocketAddress ? 0 : socket.peerPid());
    }

    private String address(SocketAddress address, int unixPeerPid) {
        if (address instanceof InetSocketAddress inet) {
            return inetAddress(inet);
        }
        return (unixPeerPid > 0 ? "unix(" + unixPeerPid + ")" : "unix") + ":" + unixPort;
    }

    private static String inetAddress(InetSocketAddress inet) {
        String host = inet.getAddress() == null ? inet.getHostString() : NetUtil.toAddressString(inet.getAddress());
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + inet.getPort();
    }

    private static String tls(ConnectionSocket client) {
        String text = Transport.tlsText(client.tlsSession());
        return text == null ? "no" : text;
    }
}
