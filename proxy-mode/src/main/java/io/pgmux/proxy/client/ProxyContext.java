package io.pgmux.proxy.client;

import io.netty.util.concurrent.EventExecutor;
import io.pgmux.core.config.PoolMode;
import io.pgmux.core.pool.Pool;
import io.pgmux.core.pool.PoolKey;
import io.pgmux.core.pool.PoolRegistry;
import io.pgmux.core.pool.Replica;
import io.pgmux.proxy.auth.AuthQuery;
import io.pgmux.proxy.auth.AuthType;
import io.pgmux.proxy.auth.HbaFile;
import io.pgmux.proxy.auth.IdentMap;
import io.pgmux.proxy.auth.QueriedUsers;
import io.pgmux.proxy.auth.UserSecrets;
import io.pgmux.proxy.config.PinSessionState;
import io.pgmux.proxy.log.ConnectionLog;
import io.pgmux.proxy.parameters.ClientParameters;
import io.pgmux.proxy.parameters.WelcomeCache;
import io.pgmux.proxy.prepared.PreparedStatementLimit;
import io.pgmux.proxy.protocol.NoticeResponse;
import io.pgmux.proxy.replicas.ReplicaRoutes;
import io.pgmux.proxy.server.AutoDatabases;
import io.pgmux.proxy.server.CancelSender;
import io.pgmux.proxy.server.PeerPools;
import io.pgmux.proxy.server.IdlePools;
import io.pgmux.proxy.server.ReplicaHosts;
import io.pgmux.proxy.server.ServerConnection;
import io.pgmux.proxy.server.ServerTarget;
import io.pgmux.proxy.transport.ClientSockets;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

/** What every client connection of one proxy shares: pools, databases, users, cancel keys. */
public final class ProxyContext {
    private final PoolRegistry<ServerConnection> registry;
    private volatile Map<String, ServerTarget> databases;
    private final AutoDatabases autoDatabases;
    private final IdlePools<ServerConnection> idlePools;
    /** Replaced by RELOAD and by SET auth_file: new logins check the new secrets. */
    private volatile UserSecrets users;
    private volatile AuthType authType;
    /** Replaced by RELOAD: new clients get the new certificates, connected ones keep theirs. */
    private volatile ClientTls clientTls;
    private final CancelSender cancelSender;
    /** Where what blocks runs, off the event loops. */
    private final Executor blockingWork;
    /** Set by RELOAD and SET; read at each login and each Parse. */
    private final PreparedStatementLimit preparedStatements;
    private final LongSupplier socketIds;
    /** The settings clients read, swapped whole by each start, RELOAD and SET. */
    private volatile ClientSettings settings = ClientSettings.DEFAULTS;
    private final CancelKeys clientsByKey = new CancelKeys();
    /** Every open client socket, channel or not. */
    private final ClientSockets clientSockets = new ClientSockets();
    private final ClientTimeouts clientTimeouts;
    private final WelcomeCache welcomeCache = new WelcomeCache();
    private final ClientLimits clientLimits = new ClientLimits();
    private final Map<PoolKey, PinCounts> pinCounts = new ConcurrentHashMap<>();
    /** By pool object: a pool rebuilt by RELOAD gets a hub of its own. */
    private final Map<Pool<ServerConnection>, ListenerHub> listenerHubs = new ConcurrentHashMap<>();
    /** By pool object, as the hubs: the read routing of each pool of a read_routing = replicas entry. */
    private final Map<Pool<ServerConnection>, ReplicaRoutes> replicaRoutes = new ConcurrentHashMap<>();
    private volatile AdminRoute adminRoute = AdminRoute.NONE;
    private volatile QueriedUsers queriedUsers = new QueriedUsers();
    private volatile Map<String, AuthQuery> authQueries = Map.of();
    private volatile AuthQuery globalAuthQuery;
    private volatile HbaFile hba;
    private volatile IdentMap identMap = IdentMap.EMPTY;
    /** PgBouncer's default until the proxy sets its own. */
    private volatile int scramIterations = 4096;
    /** Set once a shutdown (of any form, from the console or a signal) has begun. */
    private volatile boolean shuttingDown;
    private volatile ConnectionLog connectionLog = new ConnectionLog();
    /** No peer until the proxy sets its own, with its transport. */
    private volatile PeerPools peerPools = new PeerPools(null, null);
    /** The uid owning the Unix socket, the process's own; -1 without a Unix socket. */
    private volatile int unixSocketOwnerUid = -1;

    /**
     * Serves no database and takes no login until the proxy applies its configuration (databases, users, auth,
     * TLS, settings).
     *
     * @param preparedStatements PgBouncer's max_prepared_statements; 0 passes named statements through
     * @param blockingWork the proxy's executor for what blocks
     */
    public ProxyContext(PoolRegistry<ServerConnection> registry, AutoDatabases autoDatabases, CancelSender cancelSender,
            PreparedStatementLimit preparedStatements, LongSupplier socketIds, Executor blockingWork) {
        this.blockingWork = blockingWork;
        this.preparedStatements = preparedStatements;
        this.socketIds = socketIds;
        this.registry = registry;
        this.databases = Map.of();
        this.autoDatabases = autoDatabases;
        this.users = UserSecrets.of(Map.of());
        this.clientTls = ClientTls.DISABLED;
        this.cancelSender = cancelSender;
        this.clientTimeouts = new ClientTimeouts(clientsByKey,
                () -> registry.pools().stream().anyMatch(pool -> pool.view().waitingClients() > 0),
                registry::wakeJanitor, 0);
        this.idlePools = new IdlePools<>(registry, this::forcedUserPool, Duration.ZERO);
    }

    /** PgBouncer's lines about clients and servers (log_connections, log_disconnections, log_pooler_errors). */
    public ConnectionLog connectionLog() {
        return connectionLog;
    }

    /** The log the proxy's server connectors share, so that one RELOAD sets both. */
    public void connectionLog(ConnectionLog log) {
        this.connectionLog = java.util.Objects.requireNonNull(log, "log");
    }

    /** PgBouncer's peering: this process's peer_id, its [peers], and the cancels forwarded to them. */
    public PeerPools peerPools() {
        return peerPools;
    }

    /** The proxy's peer pools, which forward cancels over its transport. */
    public void peerPools(PeerPools pools) {
        this.peerPools = java.util.Objects.requireNonNull(pools, "pools");
    }

    /** The uid owning the Unix socket (-1 for none): a client of that uid there may use the admin console. */
    public void unixSocketOwnerUid(int uid) {
        this.unixSocketOwnerUid = uid;
    }

    int unixSocketOwnerUid() {
        return unixSocketOwnerUid;
    }

    public PoolRegistry<ServerConnection> registry() {
        return registry;
    }

    /** The database {@code name}: listed, or an auto-database made from the {@code *} entry; null when neither. */
    ServerTarget database(String name) {
        ServerTarget listed = databases.get(name);
        return listed != null ? listed : autoDatabases.register(name);
    }

    /** Whether {@code pool}'s user is the one its database (listed, or an auto-database made) logs in with. */
    private boolean forcedUserPool(Pool<ServerConnection> pool) {
        String database = pool.key().database();
        ServerTarget target = databases.get(database);
        if (target == null) {
            target = autoDatabases.target(database);
        }
        return target != null && pool.key().user().equals(target.user());
    }

    public AutoDatabases autoDatabases() {
        return autoDatabases;
    }

    /** pool_idle_timeout's janitor chore; {@link IdlePools#timeout} sets it. */
    public IdlePools<ServerConnection> idlePools() {
        return idlePools;
    }

    /** Whether {@code name} is still served: listed, or left to the {@code *} entry; no auto-database is made. */
    boolean serves(String name) {
        return databases.containsKey(name) || autoDatabases.target(name) != null;
    }

    /**
     * After RELOAD: the databases clients may connect to from now on. An entry whose read routing ended (the entry
     * removed, or read_routing off) has its checks stopped and its hosts' pools ({@code app@host:port}) closed.
     */
    public void databases(Map<String, ServerTarget> databases) {
        Map<String, ServerTarget> before = this.databases;
        this.databases = Map.copyOf(databases);
        if (before != null) {
            before.forEach((name, old) -> {
                ServerTarget now = this.databases.get(name);
                if (old.readRouting() != null && (now == null || now.readRouting() == null)) {
                    readRoutingEnded(name, old);
                } else if (old.readRouting() != null) {
                    hostsChanged(name, old, now);
                }
            });
        }
    }

    /**
     * A read-routing entry whose host list RELOAD changed: its routes are made afresh at the next login, and the pools
     * of the hosts it no longer lists close, their servers once released.
     */
    private void hostsChanged(String entry, ServerTarget old, ServerTarget now) {
        List<String> gone = new ArrayList<>(ReplicaHosts.poolNames(entry, old));
        List<String> kept = ReplicaHosts.poolNames(entry, now);
        if (gone.equals(kept)) {
            return;
        }
        closeRoutes(entry);
        gone.removeAll(kept);
        gone.forEach(registry::retireDatabase);
    }

    private void closeRoutes(String entry) {
        replicaRoutes.entrySet().removeIf(e -> {
            if (!e.getKey().key().database().equals(entry)) {
                return false;
            }
            e.getValue().close();
            return true;
        });
    }

    private void readRoutingEnded(String entry, ServerTarget old) {
        closeRoutes(entry);
        ReplicaHosts.poolNames(entry, old).forEach(registry::removeDatabase);
    }

    public UserSecrets users() {
        return users;
    }

    /** After RELOAD or SET auth_file: the users and secrets logins are checked against from now on. */
    public void users(UserSecrets users) {
        this.users = java.util.Objects.requireNonNull(users, "users");
    }

    AuthType authType() {
        return authType;
    }

    /** After RELOAD or SET auth_type: how logins are checked from now on. */
    public void authType(AuthType type) {
        this.authType = java.util.Objects.requireNonNull(type, "type");
    }

    /**
     * auth_query: {@code global} (null without auth_user) for databases not in {@code byDatabase}; what it finds
     * goes to {@code queried}, where the server connectors look for the secrets of users not in the auth file.
     */
    public void authQueries(AuthQuery global, Map<String, AuthQuery> byDatabase, QueriedUsers queried) {
        this.globalAuthQuery = global;
        this.authQueries = Map.copyOf(byDatabase);
        this.queriedUsers = java.util.Objects.requireNonNull(queried, "queried");
    }

    /** How users of {@code database} missing from the auth file are looked up, or null when they are not. */
    AuthQuery authQuery(String database) {
        return authQueries.getOrDefault(autoDatabases.entryName(database), globalAuthQuery);
    }

    /** How admin console users missing from the auth file are looked up: the [pgbouncer] section's auth_query. */
    AuthQuery consoleAuthQuery() {
        return globalAuthQuery;
    }

    QueriedUsers queriedUsers() {
        return queriedUsers;
    }

    /** auth_type hba: the rules and the ident maps their {@code map=} options name. */
    public void hba(HbaFile rules, IdentMap maps) {
        this.hba = rules;
        this.identMap = java.util.Objects.requireNonNull(maps, "maps");
    }

    HbaFile hba() {
        return hba;
    }

    IdentMap identMap() {
        return identMap;
    }

    /** PgBouncer's scram_iterations, for the verifiers derived from plaintext secrets. */
    public void scramIterations(int iterations) {
        this.scramIterations = iterations;
    }

    int scramIterations() {
        return scramIterations;
    }

    ClientTls clientTls() {
        return clientTls;
    }

    /** RELOAD's client TLS, for clients that connect from now on. */
    public void clientTls(ClientTls tls) {
        this.clientTls = tls;
    }

    public CancelSender cancelSender() {
        return cancelSender;
    }

    /** The proxy's executor for what blocks (file and name lookups, RELOAD, SET, SHUTDOWN), never an event loop. */
    public Executor blockingWork() {
        return blockingWork;
    }

    PreparedStatementLimit preparedStatements() {
        return preparedStatements;
    }

    /** The settings clients read now. */
    public ClientSettings settings() {
        return settings;
    }

    /**
     * After start, RELOAD or SET: the settings clients read from now on; the client timeouts hold for every client
     * from the janitor's next pass.
     */
    public void settings(ClientSettings settings) {
        this.settings = java.util.Objects.requireNonNull(settings, "settings");
        clientTimeouts.loginTimeout(settings.loginTimeout());
        clientTimeouts.limits(settings.limits(), settings.userLimits());
        clientTimeouts.waitNotifySeconds(settings.queryWaitNotifySeconds());
        clientTimeouts.fastClose(settings.serverFastClose());
    }

    /** The longest message a client connecting now may send (max_packet_size). */
    public int maxMessageLength() {
        return settings.maxMessageLength();
    }

    /**
     * After RELOAD or SET max_prepared_statements: the new limit at every client's and server's next Parse; 0, or
     * above 0 after 0, for the clients that log in from now on (PreparedStatementLimit).
     */
    public void maxPreparedStatements(int max) {
        preparedStatements.set(max);
    }

    CancelKeys clientsByKey() {
        return clientsByKey;
    }

    /** Every open client socket of the proxy, the admin console's too. */
    public ClientSockets clientSockets() {
        return clientSockets;
    }

    /** max_db_client_connections and max_user_client_connections, and the counts they limit. */
    public ClientLimits clientLimits() {
        return clientLimits;
    }

    /** login_notify_message's NOTICE, or null. */
    public NoticeResponse loginNotice() {
        return settings.loginNotice();
    }

    WelcomeCache welcomeCache() {
        return welcomeCache;
    }

    PinSessionState pinSessionState(String database) {
        ClientSettings now = settings;
        return now.pinSessionStateByDatabase().getOrDefault(autoDatabases.entryName(database), now.pinSessionState());
    }

    /** The pool's LISTEN hub, made on first use, its state on {@code loop}. */
    ListenerHub listenerHub(Pool<ServerConnection> pool, EventExecutor loop) {
        return listenerHubs.computeIfAbsent(pool, p -> new ListenerHub(p, loop));
    }

    /**
     * The read routing of {@code pool}, made at its first client's login with its checks on {@code loop}; null when
     * its entry does not route reads, or the pool is not in transaction mode, where nothing is routed.
     */
    ReplicaRoutes replicaRoutes(Pool<ServerConnection> pool, EventExecutor loop) {
        ServerTarget target = databases.get(pool.key().database());
        if (target == null || target.readRouting() == null || pool.config().poolMode() != PoolMode.TRANSACTION) {
            return null;
        }
        return replicaRoutes.computeIfAbsent(pool, p -> {
            List<Replica<ServerConnection>> hosts = new ArrayList<>();
            List<String> names = ReplicaHosts.poolNames(p.key().database(), target);
            for (int i = 0; i < names.size(); i++) {
                hosts.add(new Replica<>(ServerTarget.hostName(target.hosts().get(i)),
                        registry.pool(names.get(i), p.key().user())));
            }
            return new ReplicaRoutes(p, target.readRouting(), hosts, loop, registry.registersMbeans(),
                    registry.metricsTrackerFactory());
        });
    }

    /** Why {@code pool}'s primary cannot be had, when its read routing's checks found no host to be it; else null. */
    String noPrimary(Pool<ServerConnection> pool) {
        ReplicaRoutes routes = pool == null ? null : replicaRoutes.get(pool);
        return routes == null ? null : routes.noPrimary();
    }

    /** The proxy closes: every read routing's checks stop and its figures are withdrawn. */
    public void closeReplicaRoutes() {
        replicaRoutes.values().forEach(ReplicaRoutes::close);
        replicaRoutes.clear();
    }

    /** Every pool's read routing, for SHOW REPLICAS. */
    public Collection<ReplicaRoutes> replicaRoutes() {
        return replicaRoutes.values();
    }

    /** The pool's clients pinned to their server by session state; looked up when a client's relay is made. */
    public PinCounts pinCounts(PoolKey pool) {
        return pinCounts.computeIfAbsent(pool, k -> new PinCounts());
    }

    /** The id of a client just accepted, from the counter the registry numbers server connections from too. */
    long nextSocketId() {
        return socketIds.getAsLong();
    }

    /** disable_pqexec: whether a client's simple-protocol Query closes it. */
    boolean disablePqexec() {
        return settings.disablePqexec();
    }

    /** ignore_startup_parameters, in lower case. */
    Set<String> ignoredStartupParameters() {
        return settings.ignoredStartupParameters();
    }

    /**
     * What a client's startup packet asks of its servers, after ignore_startup_parameters (names dropped) and
     * application_name_add_host (the client's address added to its application_name, {@code app} when it named
     * none, as PgBouncer writes it).
     */
    Map<String, String> startupParameters(Map<String, String> sent, SocketAddress client) {
        ClientSettings now = settings;
        Set<String> ignoredStartupParameters = now.ignoredStartupParameters();
        boolean applicationNameAddHost = now.applicationNameAddHost();
        if (ignoredStartupParameters.isEmpty() && !applicationNameAddHost) {
            return sent;
        }
        Map<String, String> kept = new LinkedHashMap<>(sent);
        // options listed is still read, as PgBouncer reads it: only the names in it no server takes are ignored
        kept.keySet().removeIf(name -> !name.equals(ClientParameters.OPTIONS)
                && ignoredStartupParameters.contains(name.toLowerCase(Locale.ROOT)));
        if (applicationNameAddHost && client instanceof InetSocketAddress address) {
            kept.put("application_name", kept.getOrDefault("application_name", "app") + " - "
                    + address.getAddress().getHostAddress() + ":" + address.getPort());
        }
        return kept;
    }

    /** The check of every client's timeouts, for the owner to run periodically (on core's janitor). */
    public ClientTimeouts clientTimeouts() {
        return clientTimeouts;
    }

    AdminRoute adminRoute() {
        return adminRoute;
    }

    /** Routes logins to the admin console's virtual database. */
    public void adminRoute(AdminRoute route) {
        this.adminRoute = java.util.Objects.requireNonNull(route, "route");
    }

    /** The clients logged in to a database (not the admin console) and not yet gone. */
    public java.util.Collection<ClientConnection> clients() {
        return clientsByKey.view();
    }

    /** Clients logged in and not yet gone. */
    public int clientCount() {
        return clientsByKey.size();
    }

    /** A shutdown has begun: new clients of a database are refused, and so is the console's RESUME. */
    public void shutdownBegins() {
        shuttingDown = true;
    }

    public boolean isShuttingDown() {
        return shuttingDown;
    }
}
