package io.pgmux.proxy.admin;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetric;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.channel.Channel;
import io.netty.util.NetUtil;
import io.pgmux.core.config.ConfigKey;
import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.config.PoolOverrides;
import io.pgmux.core.pool.Lsn;
import io.pgmux.core.pool.Pool;
import io.pgmux.core.pool.Replica;
import io.pgmux.core.stats.PoolSnapshot;
import io.pgmux.core.stats.ServerSnapshot;
import io.pgmux.core.stats.TrafficStats;
import io.pgmux.proxy.auth.UserList;
import io.pgmux.proxy.client.ClientConnection;
import io.pgmux.proxy.client.ClientInfo;
import io.pgmux.proxy.client.ClientLimits;
import io.pgmux.proxy.client.PinCounts;
import io.pgmux.core.pool.PinReason;
import io.pgmux.proxy.server.PeerEntry;
import io.pgmux.proxy.config.ProxySetting;
import io.pgmux.proxy.config.ProxySettings;
import io.pgmux.proxy.config.Scope;
import io.pgmux.proxy.log.ConnectionLog;
import io.pgmux.proxy.replicas.ReplicaRoutes;
import io.pgmux.proxy.server.PeerPools;
import io.pgmux.proxy.server.ServerConnection;
import io.pgmux.proxy.server.ServerTarget;
import io.pgmux.proxy.transport.ConnectionSocket;
import io.pgmux.proxy.transport.DnsHosts;
import io.pgmux.proxy.transport.Transport;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSession;

/**
 * The SHOW views, each with PgBouncer 1.25's column names, order and types. Figures pgmux does not keep are
 * PgBouncer's neutral value (0, empty, NULL); the README lists them.
 */
final class ShowCommands {
    /** PgBouncer's format_time_s: local time and the zone's abbreviation ("2026-01-02 03:04:05 UTC"). */
    private static final DateTimeFormatter TIMESTAMP =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss z", Locale.ROOT).withZone(ZoneId.systemDefault());
    private static final String[] STAT_NAMES = {"server_assignment_count", "xact_count", "query_count",
        "received", "sent", "xact_time", "query_time", "wait_time", "client_parse_count", "server_parse_count",
        "bind_count", "client_login_count"};
    private static final String[] AVG_NAMES = {"server_assignment_count", "xact_count", "query_count", "recv",
        "sent", "xact_time", "query_time", "wait_time", "client_parse_count", "server_parse_count", "bind_count",
        "client_login_count"};
    private static final String[] BARE_NAMES = {"server_assignment_count", "xact_count", "query_count",
        "bytes_received", "bytes_sent", "xact_time", "query_time", "wait_time", "client_parse_count",
        "server_parse_count", "bind_count", "client_login_count"};
    /** PgBouncer 1.25's SHOW STATS_AVERAGES keeps the avg_ prefix on its four newest columns only. */
    private static final String[] BARE_AVG_NAMES = {"server_assignment_count", "xact_count", "query_count",
        "bytes_received", "bytes_sent", "xact_time", "query_time", "wait_time", "avg_client_parse_count",
        "avg_server_parse_count", "avg_bind_count", "avg_client_login_count"};

    private final AdminConsole console;

    ShowCommands(AdminConsole console) {
        this.console = console;
    }

    Table pools() {
        Table t = new Table().text("database", "user")
                .int4("cl_active", "cl_waiting", "cl_active_cancel_req", "cl_waiting_cancel_req", "sv_active",
                        "sv_active_cancel", "sv_being_canceled", "sv_idle", "sv_used", "sv_tested", "sv_login",
                        "maxwait", "maxwait_us")
                .text("pool_mode", "load_balance_hosts");
        List<Object[]> rows = new ArrayList<>();
        for (PoolSnapshot s : console.registry().snapshots()) {
            rows.add(new Object[] {s.database, s.user, s.clActive, s.clWaiting, 0, 0, s.svActive, 0, 0, s.svIdle,
                s.svUsed, s.svTested, s.svLogin, s.maxwait, s.maxwaitUs, s.poolMode, null});
        }
        // PgBouncer's admin pool: every console client, whoever logged in, in statement mode, without servers
        rows.add(new Object[] {AdminConsole.DATABASE, AdminConsole.DATABASE, console.sessions().size(), 0, 0, 0, 0, 0,
            0, 0, 0, 0, 0, 0, 0, "statement", null});
        rows.sort(Comparator.comparing((Object[] r) -> (String) r[0]).thenComparing(r -> (String) r[1]));
        rows.forEach(t::row);
        return t;
    }

    /**
     * SHOW PINS, pgmux's own view (PgBouncer pins nothing): per pool and reason, the clients pinned to their server
     * by session state now and how often a client was pinned since the start. Reasons never met are left out.
     */
    Table pins() {
        Table t = new Table().text("database", "user", "reason").int4("cl_pinned").int8("pins_total");
        List<Pool<ServerConnection>> pools = new ArrayList<>(console.registry().pools());
        pools.sort(Comparator.comparing((Pool<ServerConnection> p) -> p.key().database())
                .thenComparing(p -> p.key().user()));
        for (Pool<ServerConnection> pool : pools) {
            PinCounts counts = console.pinCounts(pool.key());
            for (PinReason reason : PinReason.values()) {
                if (counts.pinnedNow(reason) > 0 || counts.pinsTotal(reason) > 0) {
                    t.row(pool.key().database(), pool.key().user(), reason.name(), counts.pinnedNow(reason),
                            counts.pinsTotal(reason));
                }
            }
        }
        return t;
    }

    /**
     * SHOW REPLICAS, pgmux's own view: per pool of a read_routing = replicas entry and host of its list, what the
     * last check found the host to be, its replay position (a primary's: its WAL position), the bytes it had still to
     * replay then (-1 unknown), the reads routed to it, its replay lag in seconds (as replica_max_lag measures it) and
     * whether that keeps it out of the read set, and per pool the reads the primary served because no standby
     * had replayed the client's last commit in time and the reads that waited for a standby's replay.
     */
    Table replicas() {
        Table t = new Table().text("database", "user", "host", "role", "lsn").int8("lag_bytes", "reads",
                "fresh_reads_on_primary", "replay_waits").numeric("lag_seconds").text("lagging");
        List<ReplicaRoutes> all = new ArrayList<>(console.replicaRoutes());
        all.sort(Comparator.comparing((ReplicaRoutes r) -> r.primary().key().database())
                .thenComparing(r -> r.primary().key().user()));
        for (ReplicaRoutes routes : all) {
            List<Replica<ServerConnection>> hosts = routes.hosts();
            for (int i = 0; i < hosts.size(); i++) {
                long lsn = routes.position(i);
                t.row(routes.primary().key().database(), routes.primary().key().user(), hosts.get(i).host(),
                        routes.role(i).configName(), lsn == 0 ? null : Lsn.format(lsn), routes.lagBytes(i),
                        routes.reads(i), routes.freshReadsOnPrimary(), routes.replayWaits(),
                        String.format(java.util.Locale.ROOT, "%.3f", routes.lagSeconds(i)),
                        routes.lagging(i) ? "yes" : "no");
            }
        }
        return t;
    }

    /** SHOW STATS: totals and averages per database, summed over its pools. */
    Table stats() {
        Table t = new Table().text("database").numeric(prefixed("total_", STAT_NAMES))
                .numeric(prefixed("avg_", AVG_NAMES));
        databaseStats().forEach((db, s) -> {
            List<Object> row = new ArrayList<>();
            row.add(db);
            row.addAll(s.totals());
            row.addAll(s.averages());
            t.row(row);
        });
        return t;
    }

    Table statsTotals() {
        Table t = new Table().text("database").numeric(BARE_NAMES);
        databaseStats().forEach((db, s) -> {
            List<Object> row = new ArrayList<>();
            row.add(db);
            row.addAll(s.totals());
            t.row(row);
        });
        return t;
    }

    Table statsAverages() {
        Table t = new Table().text("database").numeric(BARE_AVG_NAMES);
        databaseStats().forEach((db, s) -> {
            List<Object> row = new ArrayList<>();
            row.add(db);
            row.addAll(s.averages());
            t.row(row);
        });
        return t;
    }

    /** SHOW TOTALS: SHOW STATS's figures over all databases, {@code pgbouncer} too, one (name, value) row each. */
    Table totals() {
        Table t = new Table().text("name").numeric("value");
        Stats all = new Stats();
        for (TrafficStats traffic : console.registry().traffic()) {
            all = all.plus(traffic);
        }
        List<Long> totals = all.totals();
        List<Long> averages = all.averages();
        for (int i = 0; i < STAT_NAMES.length; i++) {
            t.row("total_" + STAT_NAMES[i], totals.get(i));
        }
        for (int i = 0; i < AVG_NAMES.length; i++) {
            t.row("avg_" + AVG_NAMES[i], averages.get(i));
        }
        return t;
    }

    /**
     * The stats of each database that has a pool, by name, as PgBouncer lists them (a database no client has used
     * yet has no row), and of {@code pgbouncer}, the admin console's.
     */
    private Map<String, Stats> databaseStats() {
        Map<String, Stats> byDatabase = new TreeMap<>();
        for (Pool<ServerConnection> pool : console.registry().pools()) {
            byDatabase.merge(pool.key().database(), new Stats().plus(pool.traffic()), Stats::plus);
        }
        byDatabase.merge(AdminConsole.DATABASE, new Stats().plus(console.traffic()), Stats::plus);
        return byDatabase;
    }

    Table clients() {
        Table t = clientOrServerColumns();
        clientRows().forEach(row -> t.row(row.values));
        return t;
    }

    Table servers() {
        Table t = clientOrServerColumns();
        serverRows().forEach(row -> t.row(row.values));
        return t;
    }

    /**
     * SHOW SOCKETS: the rows of SHOW CLIENTS and SHOW SERVERS with PgBouncer's buffer columns. pgmux has no
     * socket buffers of its own (Netty's are per read), so only send_remain has a figure: the bytes written to the
     * socket and not yet taken by the kernel. ACTIVE_SOCKETS: the sockets in use (an active client or server),
     * and those with bytes left to send.
     */
    Table sockets(boolean activeOnly) {
        Table t = clientOrServerColumns().int4("recv_pos", "pkt_pos", "pkt_remain", "send_pos", "send_remain",
                "pkt_avail", "send_avail");
        List<Row> rows = new ArrayList<>(clientRows());
        rows.addAll(serverRows());
        for (Row row : rows) {
            long pending = row.pending;
            if (!activeOnly || pending > 0 || "active".equals(row.values.get(4))) {
                List<Object> values = new ArrayList<>(row.values);
                values.addAll(List.of(0, 0, 0, 0, (int) Math.min(Integer.MAX_VALUE, pending), 0, 0));
                t.row(values);
            }
        }
        return t;
    }

    /**
     * One SHOW CLIENTS or SHOW SERVERS row, with what SHOW SOCKETS and SHOW FDS add of the socket it describes: its
     * file descriptor (null where the transport has none) and the bytes it has yet to send.
     */
    private record Row(Integer fd, long pending, List<Object> values) {
    }

    private List<Row> clientRows() {
        List<Row> rows = new ArrayList<>();
        List<ClientInfo> infos = new ArrayList<>();
        for (ClientConnection client : console.clients()) {
            infos.add(client.info());
        }
        infos.sort(Comparator.comparingLong(ClientInfo::connectedAtMillis));
        for (ClientInfo c : infos) {
            ConnectionSocket socket = c.socket();
            rows.add(new Row(fd(socket.descriptor()), socket.pendingWriteBytes(), Arrays.asList("C", c.user(),
                    c.database(), c.replication(), c.state(), host(socket.remoteAddress()),
                    port(socket.remoteAddress()), host(socket.localAddress()),
                    port(socket.localAddress()), timestamp(c.connectedAtMillis()),
                    timestamp(c.requestedAtMillis()), 0, 0, 0,
                    c.ptr(), c.server() == null ? "" : ptr(c.server()), 0, tls(socket.tlsSession()),
                    c.applicationName(), 0, c.id())));
        }
        for (AdminSession s : console.sessions()) {
            // as PgBouncer's console clients, which never have a server
            rows.add(row(s.channel(), "C", s.user(), AdminConsole.DATABASE, "none", "idle",
                    host(s.channel().remoteAddress()),
                    port(s.channel().remoteAddress()), host(s.channel().localAddress()),
                    port(s.channel().localAddress()), timestamp(s.connectedAtMillis()),
                    timestamp(s.requestedAtMillis()), 0, 0, 0,
                    ptr(s.channel()), "", 0, tls(s.channel()), s.applicationName(), 0, s.id()));
        }
        return rows;
    }

    private List<Row> serverRows() {
        List<Row> rows = new ArrayList<>();
        Map<ServerConnection, ClientInfo> linked = new IdentityHashMap<>();
        for (ClientConnection client : console.clients()) {
            ClientInfo info = client.info();
            if (info.server() != null) {
                linked.put(info.server(), info);
            }
        }
        List<Pool<ServerConnection>> pools = new ArrayList<>(console.registry().pools());
        pools.sort(Comparator.comparing(p -> p.key().toString()));
        long nowMillis = System.currentTimeMillis();
        for (Pool<ServerConnection> pool : pools) {
            ServerTarget target = console.databases().get(pool.key().database());
            String loginUser = target == null ? pool.key().user() : target.loginUser(pool.key().user());
            long poolNow = pool.clock().nanoTime();
            for (ServerSnapshot<ServerConnection> s : pool.view().serverSnapshots()) {
                ServerConnection c = s.connection;
                ConnectionSocket socket = c == null ? null : c.socket();
                SocketAddress remote = socket == null ? null : socket.remoteAddress();
                SocketAddress local = socket == null ? null : socket.localAddress();
                ClientInfo client = c == null ? null : linked.get(c);
                long connectedAt = s.connectedAtNanos == 0 ? 0
                        : nowMillis - TimeUnit.NANOSECONDS.toMillis(poolNow - s.connectedAtNanos);
                long usedAt = s.lastUsedNanos == 0 ? 0
                        : nowMillis - TimeUnit.NANOSECONDS.toMillis(poolNow - s.lastUsedNanos);
                rows.add(row(socket, "S", loginUser, pool.key().database(),
                        c == null ? "none" : c.replication(), s.state.equals("login") ? "new" : s.state,
                        host(remote), port(remote), host(local), port(local),
                        connectedAt == 0 ? null : timestamp(connectedAt), usedAt == 0 ? null : timestamp(usedAt),
                        0, 0, s.closeNeeded ? 1 : 0, c == null ? "" : ptr(c),
                        client == null ? "" : client.ptr(),
                        c == null || c.backendKeyData() == null ? 0 : c.backendKeyData().processId(),
                        socket == null ? "" : tls(socket.tlsSession()), client == null ? "" : client.applicationName(),
                        c == null ? 0 : c.preparedStatements() == null ? 0 : c.preparedStatements().size(), s.id));
            }
        }
        return rows;
    }

    private static Row row(Channel channel, Object... values) {
        return new Row(fd(channel), pendingBytes(channel), Arrays.asList(values));
    }

    private static Row row(ConnectionSocket socket, Object... values) {
        return socket == null ? new Row(null, 0, Arrays.asList(values))
                : new Row(fd(socket.descriptor()), socket.pendingWriteBytes(), Arrays.asList(values));
    }

    private static Table clientOrServerColumns() {
        return new Table().text("type", "user", "database", "replication", "state", "addr").int4("port")
                .text("local_addr").int4("local_port").text("connect_time", "request_time")
                .int4("wait", "wait_us", "close_needed").text("ptr", "link").int4("remote_pid")
                .text("tls", "application_name").int4("prepared_statements").int8("id");
    }

    Table databases() {
        Table t = new Table().text("name", "host").int4("port").text("database", "force_user")
                .int4("pool_size", "min_pool_size", "reserve_pool_size", "server_lifetime")
                .text("pool_mode", "load_balance_hosts")
                .int4("max_connections", "current_connections", "max_client_connections",
                        "current_client_connections", "paused", "disabled");
        PoolConfig c = console.config();
        ClientLimits limits = console.clientLimits();
        PoolOverrides overrides = console.registry().overrides();
        TreeMap<String, ServerTarget> byName = new TreeMap<>(console.databases());
        byName.headMap(AdminConsole.DATABASE).forEach((name, target) -> databaseRow(t, name, target, c, limits,
                overrides));
        // the console's own database, in its place by name: its pool of 2, global settings otherwise, as PgBouncer's
        t.row(AdminConsole.DATABASE, null, console.port(), AdminConsole.DATABASE, AdminConsole.DATABASE, 2, 0, 0,
                TimeUnit.NANOSECONDS.toSeconds(c.serverLifetimeNanos()), "statement", null, c.maxDbConnections(), 0,
                limits.databaseMax(AdminConsole.DATABASE), console.sessions().size(), 0, 0);
        byName.tailMap(AdminConsole.DATABASE, false).forEach((name, target) -> databaseRow(t, name, target, c, limits,
                overrides));
        return t;
    }

    private void databaseRow(Table t, String name, ServerTarget target, PoolConfig c, ClientLimits limits,
            PoolOverrides overrides) {
        String entry = console.entryName(name);
        PoolConfig d = overrides.forDatabase(c, entry);
        // as PgBouncer: pool_mode is the database's own, NULL when the global one applies
        String poolMode = overrides.database(entry).keySet().stream()
                .anyMatch(k -> ConfigKey.lookup(k) == ConfigKey.POOL_MODE) ? d.poolMode().configName() : null;
        t.row(name, target.host(), target.port(), target.dbname(), target.user(), d.defaultPoolSize(),
                d.minPoolSize(), d.reservePoolSize(), TimeUnit.NANOSECONDS.toSeconds(d.serverLifetimeNanos()),
                poolMode, target.hosts().size() > 1 ? target.loadBalanceHosts().configName() : null,
                d.maxDbConnections(), console.registry().databaseConnections(name), limits.databaseMax(name),
                limits.databaseClients(name), console.isPaused(name) ? 1 : 0,
                console.isDisabled(name) ? 1 : 0);
    }

    Table users() {
        // pool_size and reserve_pool_size are text, right-aligned in 9 characters, as PgBouncer prints them
        Table t = new Table().text("name", "pool_size", "reserve_pool_size", "pool_mode")
                .int4("max_user_connections", "current_connections", "max_user_client_connections",
                        "current_client_connections");
        ClientLimits limits = console.clientLimits();
        Map<String, Integer> consoleClients = new HashMap<>();
        console.sessions().forEach(session -> consoleClients.merge(session.user(), 1, Integer::sum));
        PoolOverrides overrides = console.registry().overrides();
        for (String name : userNames()) {
            // as PgBouncer: pool_size, reserve_pool_size and pool_mode are the user's own, empty (pool_mode NULL)
            // when not set
            PoolConfig u = overrides.forUser(console.config(), name);
            Set<ConfigKey> own = EnumSet.noneOf(ConfigKey.class);
            overrides.user(name).keySet().forEach(k -> own.add(ConfigKey.lookup(k)));
            t.row(name, own.contains(ConfigKey.DEFAULT_POOL_SIZE) ? "%9d".formatted(u.defaultPoolSize()) : "",
                    own.contains(ConfigKey.RESERVE_POOL_SIZE) ? "%9d".formatted(u.reservePoolSize()) : "",
                    own.contains(ConfigKey.POOL_MODE) ? u.poolMode().configName() : null, u.maxUserConnections(),
                    console.registry().userConnections(name), limits.userMax(name),
                    limits.userClients(name) + consoleClients.getOrDefault(name, 0));
        }
        return t;
    }

    /**
     * The users PgBouncer knows: those of the pools and of the clients (a database's forced user's pool serves
     * clients of other users), the admin and stats users and the console's own, every user of the auth file and
     * of a {@code [users]} entry, and the user a database entry logs in as.
     */
    private TreeSet<String> userNames() {
        TreeSet<String> names = new TreeSet<>();
        console.registry().pools().forEach(p -> names.add(p.key().user()));
        names.addAll(console.clientLimits().usersSeen());
        names.addAll(console.adminUsers());
        names.addAll(console.statsUsers());
        names.add(AdminConsole.DATABASE);
        if (console.userSecrets() instanceof UserList authFile) {
            names.addAll(authFile.users());
        }
        names.addAll(console.registry().overrides().users());
        names.addAll(console.clientLimits().usersWithOwnLimit());
        names.addAll(console.clientTimeouts().usersWithOwnLimits());
        console.databases().values().forEach(target -> {
            if (target.user() != null && !target.user().isEmpty()) {
                names.add(target.user());
            }
        });
        return names;
    }

    Table lists() {
        Table t = new Table().text("list").int4("items");
        int servers = 0;
        for (Pool<ServerConnection> pool : console.registry().pools()) {
            servers += pool.getTotalConnections();
        }
        // the admin console's database and pool count, as in PgBouncer
        t.row("databases", console.databases().size() + 1);
        t.row("users", userNames().size());
        t.row("peers", console.peerPools().peers().size());
        t.row("pools", console.registry().pools().size() + 1);
        t.row("peer_pools", console.peerPools().rows().size());
        t.row("free_clients", 0);
        t.row("used_clients", console.clients().size() + console.sessions().size());
        t.row("login_clients", 0);
        t.row("free_servers", 0);
        t.row("used_servers", servers);
        t.row("dns_names", 0);
        t.row("dns_zones", 0);
        t.row("dns_queries", 0);
        t.row("dns_pending", 0);
        return t;
    }

    /** The [peers] entries by id; an entry's pool_size is default_pool_size's when it sets none, as PgBouncer shows. */
    static Table peers(PeerPools peers) {
        Table t = new Table().int4("peer_id").text("host").int4("port", "pool_size");
        for (PeerEntry peer : peers.peers()) {
            t.row(peer.id(), peer.host().host(), peer.host().port(), peer.poolSize(peers.defaultPoolSize()));
        }
        return t;
    }

    /**
     * PgBouncer's columns (its code's, not its documentation's {@code database}): a row per peer a cancel has been
     * forwarded to.
     */
    static Table peerPools(PeerPools peers) {
        Table t = new Table().int4("peer_id", "cl_active_cancel_req", "cl_waiting_cancel_req", "sv_active_cancel",
                "sv_login");
        for (PeerPools.Row row : peers.rows()) {
            t.row(row.peerId(), row.activeRequests(), row.waitingRequests(), row.activeCancels(), row.logins());
        }
        return t;
    }

    /** The host names looked up for server connections, with seconds until the next lookup and their addresses. */
    static Table dnsHosts(DnsHosts dnsHosts) {
        Table t = new Table().text("hostname").int8("ttl").text("addrs");
        for (DnsHosts.Host host : dnsHosts.hosts()) {
            t.row(host.name(), host.ttlSeconds(), host.addresses());
        }
        return t;
    }

    /**
     * PgBouncer's columns and no row: zones are followed only by PgBouncer's c-ares build with dns_zone_check_period,
     * and pgmux leaves expiry to the JVM's cache.
     */
    static Table dnsZones() {
        return new Table().text("zonename").int8("serial").int4("count");
    }

    /** Every setting pgmux takes in [pgbouncer]; changeable (by SET and RELOAD) as its RELOAD rule says. */
    Table config() {
        Table t = new Table().text("key", "value", "default", "changeable");
        ProxySettings settings = console.settings();
        for (ProxySetting s : ProxySetting.all(Scope.GLOBAL)) {
            t.row(s.configName(), settings.text(s), s.defaultText(),
                    s.change() == ProxySetting.Change.RELOAD ? "yes" : "no");
        }
        return t;
    }

    /** SHOW STATE: active unless paused or suspended, as PgBouncer's (PAUSE of one database leaves it active). */
    Table state() {
        Table t = new Table().text("key", "value");
        boolean paused = console.isPausedAll();
        boolean suspended = console.isSuspended();
        t.row("active", paused || suspended ? "no" : "yes");
        t.row("paused", paused ? "yes" : "no");
        t.row("suspended", suspended ? "yes" : "no");
        return t;
    }

    /**
     * SHOW FDS: one row per listening socket (task {@code pooler}, as PgBouncer's), client and server socket, its
     * file descriptor where the epoll transport has one (NULL on NIO). PgBouncer lists them for an online restart's
     * takeover, which pgmux has not; so the session settings and secrets PgBouncer hands over are NULL here, never
     * shown.
     */
    Table fds() {
        Table t = new Table().int4("fd").text("task", "user", "database", "addr").int4("port").int8("cancel")
                .int4("link").text("client_encoding", "std_strings", "datestyle", "timezone", "password",
                        "scram_client_key", "scram_server_key");
        for (Channel listener : console.listening()) {
            String addr = listener.localAddress() instanceof InetSocketAddress inet
                    ? NetUtil.toAddressString(inet.getAddress()) : "unix";
            t.row(fd(listener), "pooler", null, null, addr, console.port(), 0, 0, null, null, null, null, null, null,
                    null);
        }
        for (Row row : clientRows()) {
            List<Object> v = row.values;
            t.row(row.fd, "client", v.get(1), v.get(2), v.get(5), v.get(6), 0, linkFd(v.get(15)), null,
                    null, null, null, null, null, null);
        }
        for (Row row : serverRows()) {
            List<Object> v = row.values;
            t.row(row.fd, "server", v.get(1), v.get(2), v.get(5), v.get(6), 0, null, null, null, null,
                    null, null, null, null);
        }
        return t;
    }

    /**
     * SHOW MEM: PgBouncer's slab caches have no counterpart in a JVM; the rows are what the proxy's memory is:
     * the heap, and Netty's pooled buffers (direct and heap), each with size 1 so that used, free and memtotal are
     * bytes.
     */
    Table mem() {
        Table t = new Table().text("name").int8("size", "used", "free", "memtotal");
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        t.row("jvm_heap", 1, heap.getUsed(), heap.getCommitted() - heap.getUsed(), heap.getCommitted());
        ByteBufAllocatorMetric buffers = ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider p
                ? p.metric() : null;
        long direct = buffers == null ? 0 : buffers.usedDirectMemory();
        long onHeap = buffers == null ? 0 : buffers.usedHeapMemory();
        t.row("netty_direct_buffers", 1, direct, 0, direct);
        t.row("netty_heap_buffers", 1, onHeap, 0, onHeap);
        return t;
    }

    Table version() {
        Table t = new Table().text("version");
        t.row(AdminConsole.versionText());
        return t;
    }

    private static Integer fd(Channel channel) {
        return channel == null ? null : fd(Transport.descriptor(channel));
    }

    private static Integer fd(int descriptor) {
        return descriptor < 0 ? null : descriptor;
    }

    /** The fd of the server a client is linked to, found by the ptr SHOW CLIENTS links it with. */
    private Integer linkFd(Object serverPtr) {
        if (serverPtr == null || "".equals(serverPtr)) {
            return null;
        }
        for (Row row : serverRows()) {
            if (serverPtr.equals(row.values.get(14))) {
                return row.fd;
            }
        }
        return null;
    }

    private static long pendingBytes(Channel channel) {
        return channel == null ? 0 : Transport.pendingWriteBytes(channel);
    }

    private static String[] prefixed(String prefix, String[] names) {
        String[] out = new String[names.length];
        for (int i = 0; i < names.length; i++) {
            out[i] = prefix + names[i];
        }
        return out;
    }

    private static String host(SocketAddress address) {
        return address instanceof InetSocketAddress inet ? inet.getAddress() == null ? inet.getHostString()
                : inet.getAddress().getHostAddress() : address == null ? null : "unix";
    }

    private static Integer port(SocketAddress address) {
        return address instanceof InetSocketAddress inet ? inet.getPort() : null;
    }

    private static String timestamp(long millis) {
        return TIMESTAMP.format(Instant.ofEpochMilli(millis));
    }

    private static String ptr(Object o) {
        return ConnectionLog.ptr(o);
    }

    private static String tls(Channel channel) {
        return tls(Transport.tlsSession(channel));
    }

    private static String tls(SSLSession session) {
        String text = Transport.tlsText(session);
        return text == null ? "" : text;
    }

    /**
     * The figures of SHOW STATS for some pools, as PgBouncer sums them: their totals and their last stats periods
     * added up, the averages computed from the sums; in SHOW STATS's column order.
     */
    private record Stats(TrafficStats.Totals sum, TrafficStats.Period period) {
        Stats() {
            this(TrafficStats.Totals.ZERO, TrafficStats.Period.NONE);
        }

        Stats plus(TrafficStats traffic) {
            return new Stats(sum.plus(traffic.totals()), period.plus(traffic.lastPeriod()));
        }

        Stats plus(Stats other) {
            return new Stats(sum.plus(other.sum), period.plus(other.period));
        }

        List<Long> totals() {
            TrafficStats.Totals t = sum;
            return List.of(t.serverAssignmentCount, t.xactCount, t.queryCount, t.received, t.sent, t.xactTimeMicros,
                    t.queryTimeMicros, t.waitTimeMicros, t.clientParseCount, t.serverParseCount, t.bindCount,
                    t.clientLoginCount);
        }

        List<Long> averages() {
            TrafficStats.Averages a = period.averages();
            return List.of(a.serverAssignmentCount, a.xactCount, a.queryCount, a.received, a.sent, a.xactTimeMicros,
                    a.queryTimeMicros, a.waitTimeMicros, a.clientParseCount, a.serverParseCount, a.bindCount,
                    a.clientLoginCount);
        }
    }
}
