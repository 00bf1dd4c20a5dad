package io.pgmux.proxy.server;

import io.pgmux.proxy.config.ConnectString;
import io.pgmux.proxy.config.ListenAddresses;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * One {@code [peers]} entry, as PgBouncer 1.19+ reads it: the key is the peer's {@code peer_id} (1 to 65535), the
 * value a connection string of {@code host} (required; a directory for its Unix socket), {@code port} (6432) and
 * {@code pool_size} (at most that many cancel requests in flight to the peer; default_pool_size when unset).
 *
 * @param poolSize the entry's own pool_size, or -1 for default_pool_size
 */
public record PeerEntry(int id, ServerHost host, int poolSize) {
    /** PgBouncer's default port of a peer, its own listen_port's default. */
    public static final int DEFAULT_PORT = 6432;
    /** The largest id the two bytes of a cancel key hold (peer_id's range in config's SettingRange says the same). */
    public static final int MAX_ID = 0xFFFF;

    /**
     * @throws IllegalArgumentException with PgBouncer's reason, for an id that is no number from 1 to 65535, a key
     *     other than host, port and pool_size, a port that is no number, or no host
     */
    public static PeerEntry parse(String key, String value) {
        int id = parseId(key);
        Map<String, String> pairs = ConnectString.parse("peer " + id, value);
        String host = null;
        int port = DEFAULT_PORT;
        int poolSize = -1;
        for (Map.Entry<String, String> pair : pairs.entrySet()) {
            switch (pair.getKey()) {
                case "host" -> host = pair.getValue();
                case "port" -> port = number(pair.getValue(), "invalid port: " + pair.getValue());
                case "pool_size" -> poolSize = number(pair.getValue(), "invalid pool_size: " + pair.getValue());
                default -> throw new IllegalArgumentException("unrecognized connection parameter: " + pair.getKey()
                        + " (a peer takes host, port and pool_size)");
            }
        }
        if (host == null || host.isEmpty()) {
            throw new IllegalArgumentException("host was not provided for peer " + id);
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("invalid port: " + port);
        }
        return new PeerEntry(id, new ServerHost(host, port), poolSize);
    }

    /** The pool_size in effect: the entry's own, or {@code defaultPoolSize}. */
    public int poolSize(int defaultPoolSize) {
        return poolSize >= 0 ? poolSize : defaultPoolSize;
    }

    /**
     * Refuses this entry when it names this process's own listen address ({@link #isAddressOf}) under another id
     * than {@code ownId}: a cancel forwarded there would come back, and go round until its TTL ran out. Under the
     * process's own id it is taken, as PgBouncer takes it, so that every process of a group can share one [peers].
     *
     * @throws IllegalArgumentException naming the entry and what to do instead
     */
    public void checkNotSelf(int ownId, String listenAddr, int listenPort, String unixSocketDir) {
        if (id != ownId && isAddressOf(listenAddr, listenPort, unixSocketDir)) {
            throw new IllegalArgumentException("peer " + id + " (" + host + ") is this process's own listen"
                    + " address, and this process is peer_id " + ownId + ": a cancel forwarded there would come back"
                    + " here; give peer " + id + " an address only it listens on (its own unix_socket_dir), or set"
                    + " peer_id = " + id + " if this process is that peer");
        }
    }

    /**
     * Whether this entry names the address this process listens on itself: its Unix socket (unix_socket_dir and
     * listen_port), or listen_port on one of listen_addr's hosts ({@code localhost} and a loopback address for
     * {@code *}). No name is looked up: only what can be told from the text.
     */
    public boolean isAddressOf(String listenAddr, int listenPort, String unixSocketDir) {
        if (host.port() != listenPort) {
            return false;
        }
        if (host.isUnixSocket()) {
            return !host.isAbstract() && !unixSocketDir.isEmpty()
                    && Path.of(host.host()).normalize().equals(Path.of(unixSocketDir).normalize());
        }
        String name = host.host().toLowerCase(Locale.ROOT);
        for (String listened : ListenAddresses.hosts(listenAddr)) {
            boolean every = listened.equals(ListenAddresses.EVERY_ADDRESS)
                    || listened.equals(ListenAddresses.EVERY_IPV4_ADDRESS);
            boolean loopback = name.equals("localhost") || name.startsWith("127.") || name.equals("::1");
            if (listened.equalsIgnoreCase(name) || every && loopback
                    || name.equals("localhost") && (listened.startsWith("127.") || listened.equals("::1"))) {
                return true;
            }
        }
        return false;
    }

    private static int parseId(String key) {
        try {
            int id = Integer.parseInt(key.strip());
            if (id >= 1 && id <= MAX_ID) {
                return id;
            }
        } catch (NumberFormatException e) {
            // refused below, with the range
        }
        throw new IllegalArgumentException("ids of peers must be a number larger than 0 and at most " + MAX_ID
                + ", not \"" + key + "\"");
    }

    private static int number(String text, String refusal) {
        try {
            int n = Integer.parseInt(text.strip());
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new IllegalArgumentException(refusal);
    }
}
