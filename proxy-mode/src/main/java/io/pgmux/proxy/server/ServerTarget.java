package io.pgmux.proxy.server;

import io.pgmux.proxy.config.TlsMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Where a database of the proxy lives, as one line of PgBouncer's {@code [databases]}: its hosts (one, or a
 * list tried in turn, with load_balance_hosts and target_session_attrs choosing among them), the real database
 * name and, optionally, the user and password the pooler logs in with (when absent, the client's user and its
 * secret from the auth file) and the sslmode of its server connections (when null, the proxy's
 * server_tls_sslmode).
 *
 * @param passwordSource pgmux's server_password_file or server_password_command of the entry, read at each
 *     login; null for none (then password, else the global source, else the auth file)
 * @param readRouting pgmux's read_routing = replicas and its settings; null when off
 */
public record ServerTarget(List<ServerHost> hosts, String dbname, String user, String password, TlsMode tlsMode,
        LoadBalanceHosts loadBalanceHosts, TargetSessionAttrs targetSessionAttrs, ServerSetup setup,
        ServerPasswordSource passwordSource, ReadRouting readRouting) {

    public ServerTarget {
        hosts = List.copyOf(hosts);
        if (hosts.isEmpty()) {
            throw new IllegalArgumentException("no host");
        }
        Objects.requireNonNull(dbname, "dbname");
        Objects.requireNonNull(loadBalanceHosts, "loadBalanceHosts");
        Objects.requireNonNull(targetSessionAttrs, "targetSessionAttrs");
        Objects.requireNonNull(setup, "setup");
    }

    /** Without read routing. */
    public ServerTarget(List<ServerHost> hosts, String dbname, String user, String password, TlsMode tlsMode,
            LoadBalanceHosts loadBalanceHosts, TargetSessionAttrs targetSessionAttrs, ServerSetup setup,
            ServerPasswordSource passwordSource) {
        this(hosts, dbname, user, password, tlsMode, loadBalanceHosts, targetSessionAttrs, setup, passwordSource, null);
    }

    /** The password, if any, as written in the entry. */
    public ServerTarget(List<ServerHost> hosts, String dbname, String user, String password, TlsMode tlsMode,
            LoadBalanceHosts loadBalanceHosts, TargetSessionAttrs targetSessionAttrs, ServerSetup setup) {
        this(hosts, dbname, user, password, tlsMode, loadBalanceHosts, targetSessionAttrs, setup, null);
    }

    /** Nothing asked of a server beyond the login. */
    public ServerTarget(List<ServerHost> hosts, String dbname, String user, String password, TlsMode tlsMode,
            LoadBalanceHosts loadBalanceHosts, TargetSessionAttrs targetSessionAttrs) {
        this(hosts, dbname, user, password, tlsMode, loadBalanceHosts, targetSessionAttrs, ServerSetup.NONE);
    }

    /** One host, round-robin (moot) and any server. */
    public ServerTarget(String host, int port, String dbname, String user, String password, TlsMode tlsMode) {
        this(List.of(new ServerHost(host, port)), dbname, user, password, tlsMode, LoadBalanceHosts.ROUND_ROBIN,
                TargetSessionAttrs.ANY);
    }

    /**
     * The hosts of {@code host=a,b,c port=p} or {@code port=p1,p2,p3}: one port for every host, or one per host,
     * as libpq reads them; {@code hosts} null (no host given) is the socket in unix_socket_dir, {@link
     * ServerHost#unset}.
     *
     * @throws IllegalArgumentException for an empty entry, a port that is not a number from 1 to 65535, or as
     *     many ports as neither one nor the hosts
     */
    public static List<ServerHost> hostList(String hosts, String ports) {
        String[] names = hosts == null ? new String[] {null} : hosts.split(",", -1);
        String[] numbers = ports.split(",", -1);
        if (numbers.length != 1 && numbers.length != names.length) {
            throw new IllegalArgumentException("port lists " + numbers.length + " ports for " + names.length
                    + " hosts: give one port for all hosts or one per host");
        }
        List<ServerHost> list = new ArrayList<>(names.length);
        for (int i = 0; i < names.length; i++) {
            String number = numbers[numbers.length == 1 ? 0 : i].trim();
            int port;
            try {
                port = Integer.parseInt(number);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("port must be a number, not \"" + number + "\"");
            }
            list.add(names[i] == null ? ServerHost.unset(port) : new ServerHost(names[i].trim(), port));
        }
        return list;
    }

    /** The hosts as written in a host list, {@code a,b,c}; null for an entry without host, as PgBouncer shows it. */
    public String host() {
        if (!hosts.get(0).set()) {
            return null;
        }
        return hosts.stream().map(ServerHost::host).collect(Collectors.joining(","));
    }

    /** The first host's port (SHOW DATABASES shows one). */
    public int port() {
        return hosts.get(0).port();
    }

    /** This target with {@code mode} when it names no sslmode of its own. */
    public ServerTarget withDefaultTlsMode(TlsMode mode) {
        return tlsMode != null ? this
                : new ServerTarget(hosts, dbname, user, password, mode, loadBalanceHosts, targetSessionAttrs, setup,
                        passwordSource, readRouting);
    }

    /** This target with an entry without host going to the socket in {@code unixSocketDir} (empty for none). */
    public ServerTarget withSocketDirectory(String unixSocketDir) {
        List<ServerHost> placed = hosts.stream().map(h -> h.inSocketDirectory(unixSocketDir)).toList();
        return placed.equals(hosts) ? this : new ServerTarget(placed, dbname, user, password, tlsMode,
                loadBalanceHosts, targetSessionAttrs, setup, passwordSource, readRouting);
    }

    /**
     * This target for a connection of one client's own (a replication connection): the client's startup
     * parameters after the entry's, and no connect_query, which a physical replication session cannot run.
     */
    ServerTarget withClientStartup(Map<String, String> clientStartup) {
        Map<String, String> startup = new LinkedHashMap<>(setup.startupParameters());
        startup.putAll(clientStartup);
        return new ServerTarget(hosts, dbname, user, password, tlsMode, loadBalanceHosts, targetSessionAttrs,
                new ServerSetup(startup, null));
    }

    /** This target narrowed to one of its hosts, for one server connection. */
    ServerTarget at(ServerHost host) {
        return new ServerTarget(List.of(host), dbname, user, password, tlsMode, loadBalanceHosts, targetSessionAttrs,
                setup, passwordSource);
    }

    /**
     * The target of one host of a read-routing entry, for the pool of its own that reads borrow from: that host
     * whatever its kind, which the replica checks tell.
     */
    public ServerTarget replicaAt(ServerHost host) {
        return new ServerTarget(List.of(host), dbname, user, password, tlsMode, loadBalanceHosts,
                TargetSessionAttrs.ANY, setup, passwordSource, null);
    }

    /** {@code host:port} of each host, as the names of the hosts' own pools end ({@code app@host:port}). */
    public static String hostName(ServerHost host) {
        return host.host() + ":" + host.port();
    }

    /** The user to log in as for a client logged in as {@code clientUser}. */
    public String loginUser(String clientUser) {
        return user != null && !user.isEmpty() ? user : clientUser;
    }

    /** No password in the string form: it ends up in logs. */
    @Override
    public String toString() {
        List<String> each = hosts.stream().map(h -> Integer.toString(h.port())).toList();
        String ports = each.stream().distinct().count() == 1 ? each.get(0) : String.join(",", each);
        return (host() != null ? "host=" + host() + " " : "") + "port=" + ports + " dbname=" + dbname
                + (user != null ? " user=" + user : "")
                + (tlsMode != null ? " sslmode=" + tlsMode : "")
                + (hosts.size() > 1 ? " load_balance_hosts=" + loadBalanceHosts : "")
                + (targetSessionAttrs != TargetSessionAttrs.ANY ? " target_session_attrs=" + targetSessionAttrs : "")
                + (readRouting != null ? " read_routing=replicas" : "");
    }
}
