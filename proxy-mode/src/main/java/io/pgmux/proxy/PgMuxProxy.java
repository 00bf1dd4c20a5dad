package io.pgmux.proxy;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.config.PoolMode;
import io.pgmux.core.config.PoolOverrides;
import io.pgmux.core.pool.PoolKey;
import io.pgmux.core.pool.PoolRegistry;
import io.pgmux.core.stats.MetricsTrackerFactory;
import io.pgmux.core.stats.micrometer.MicrometerMetricsTrackerFactory;
import io.pgmux.proxy.admin.AdminConsole;
import io.pgmux.proxy.auth.AuthType;
import io.pgmux.proxy.auth.PlaintextSecret;
import io.pgmux.proxy.auth.QueriedUsers;
import io.pgmux.proxy.auth.ScramSecret;
import io.pgmux.proxy.auth.Secret;
import io.pgmux.proxy.auth.UserList;
import io.pgmux.proxy.auth.UserSecrets;
import io.pgmux.proxy.client.ClientAuthentication;
import io.pgmux.proxy.client.ClientConnection;
import io.pgmux.proxy.client.ClientTimeouts;
import io.pgmux.proxy.client.ClientTls;
import io.pgmux.proxy.client.DirectTls;
import io.pgmux.proxy.client.PinCounts;
import io.pgmux.proxy.client.ProxyContext;
import io.pgmux.proxy.config.PinSessionState;
import io.pgmux.proxy.config.ProxySetting;
import io.pgmux.proxy.config.ProxySettings;
import io.pgmux.proxy.config.Scope;
import io.pgmux.proxy.config.TlsCipherSuites;
import io.pgmux.proxy.config.TlsMode;
import io.pgmux.proxy.config.TlsProtocols;
import io.pgmux.proxy.config.TransportKind;
import io.pgmux.proxy.log.ConnectionLog;
import io.pgmux.proxy.log.StatsLog;
import io.pgmux.proxy.metrics.PrometheusEndpoint;
import io.pgmux.proxy.prepared.PreparedStatementLimit;
import io.pgmux.proxy.protocol.FrontendMessageDecoder;
import io.pgmux.proxy.protocol.MessageEncoder;
import io.pgmux.proxy.server.AutoDatabases;
import io.pgmux.proxy.server.CancelSender;
import io.pgmux.proxy.server.NettyServerConnector;
import io.pgmux.proxy.server.ReloadableConnector;
import io.pgmux.proxy.server.ServerConnection;
import io.pgmux.proxy.server.ServerTarget;
import io.pgmux.proxy.server.ServerTargets;
import io.pgmux.proxy.server.ServerTls;
import io.pgmux.proxy.transport.Listeners;
import io.pgmux.proxy.transport.ReadGate;
import io.pgmux.proxy.transport.TcpOptions;
import io.pgmux.proxy.transport.Transport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * pgmux as a PostgreSQL protocol proxy inside a JVM: a listener that any PostgreSQL client connects to, pooling
 * server connections as PgBouncer does.
 *
 * <pre>{@code
 * PgMuxProxy proxy = PgMuxProxy.builder()
 *         .listen("127.0.0.1", 6432)
 *         .database("app", "postgresql://app:secret@127.0.0.1:5432/app")
 *         .poolMode(PoolMode.TRANSACTION)
 *         .authType(AuthType.SCRAM_SHA_256).authFile(Path.of("userlist.txt"))
 *         .start();
 * }</pre>
 */
public final class PgMuxProxy implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PgMuxProxy.class);
    private static final String CLIENT_TLS_PREFIX = "client_tls";
    private static final String SERVER_TLS_PREFIX = "server_tls";
    /** Every server_tls_* setting, by the prefix admin SET goes by too. */
    private static final List<ProxySetting> SERVER_TLS = Arrays.stream(ProxySetting.values())
            .filter(s -> s.configName().startsWith(SERVER_TLS_PREFIX)).toList();
    private final Transport transport;
    private final PoolRegistry<ServerConnection> registry;
    private final ProxyContext context;
    private final Listeners listeners;
    private final StatsLog statsLog;
    private final ChannelGroup clients;
    private final Duration drainTimeout;
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    /** Taken by the one thread that closes; SHUTDOWN on the console and close() may cross. */
    private final AtomicBoolean closing = new AtomicBoolean();
    /** The [databases] targets as configured; RELOAD adds, changes and removes them. */
    private Map<String, ServerTarget> databases;
    /** Every pool's connector, to the targets with server_tls_sslmode applied. */
    private final Connectors connectors;
    /** The users and secrets as read last, from the auth file or given in code. */
    private UserSecrets users;
    /** The client TLS that settings make (the builder's own SSL context, if it was given one). */
    private final Function<ProxySettings, ClientTls> clientTlsOf;
    /** Where SET resolves relative file names: the configuration file's directory. */
    private final Path configDirectory;
    /** The [databases] entries' own pin_session_state; RELOAD adds those of new entries. */
    private Map<String, PinSessionState> pinSessionStateByDatabase;
    /** The entries' own max_db_client_connections and max_user_client_connections, as RELOAD read them last. */
    private EntryLimits clientLimits;
    /** The settings it was started with, updated by RELOAD where a reload applies. */
    private volatile ProxySettings settings;
    private final AdminConsole console;
    /** Where RELOAD loads the configuration from; null when built in code. */
    private final ConfigSource reloadFrom;
    /** metrics_listen's endpoint; null when off. */
    private final PrometheusEndpoint metrics;
    /** Told of the settings each RELOAD and SET leaves in effect: the standalone process's logging. */
    private volatile Consumer<ProxySettings> settingsApplied = applied -> { };
    /** The [databases] entries' own auth_user, auth_query and auth_dbname, as read last. */
    private Map<String, Map<ProxySetting, String>> authByDatabase;
    /** The [users] entries' own client timeouts, as read last. */
    private Map<String, ClientTimeouts.Limits> userLimits;

    private PgMuxProxy(Transport transport, PoolRegistry<ServerConnection> registry, ProxyContext context,
            Listeners listeners, StatsLog statsLog, ChannelGroup clients, Duration drainTimeout,
            Map<String, ServerTarget> databases,
            Map<String, PinSessionState> pinSessionStateByDatabase, EntryLimits clientLimits, ProxySettings settings,
            AdminConsole console, ConfigSource reloadFrom, Connectors connectors, UserSecrets users,
            Function<ProxySettings, ClientTls> clientTlsOf, Path configDirectory, PrometheusEndpoint metrics,
            Map<String, Map<ProxySetting, String>> authByDatabase, Map<String, ClientTimeouts.Limits> userLimits) {
        this.authByDatabase = authByDatabase;
        this.userLimits = userLimits;
        this.configDirectory = configDirectory;
        this.reloadFrom = reloadFrom;
        this.metrics = metrics;
        this.connectors = connectors;
        this.users = users;
        this.clientTlsOf = clientTlsOf;
        this.databases = databases;
        this.pinSessionStateByDatabase = pinSessionStateByDatabase;
        this.clientLimits = clientLimits;
        this.settings = settings;
        this.console = console;
        this.transport = transport;
        this.registry = registry;
        this.context = context;
        this.listeners = listeners;
        this.statsLog = statsLog;
        this.clients = clients;
        this.drainTimeout = drainTimeout;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The port the listeners are bound to (useful after {@code listen(host, 0)}). */
    public int port() {
        return listeners.port();
    }

    /** The first listen_addr's address, or null when only the Unix socket listens. */
    public String host() {
        InetSocketAddress first = listeners.firstTcpAddress();
        return first == null ? null : first.getHostString();
    }

    /** Where it listens, as PgBouncer logs it: {@code 127.0.0.1:6432}, {@code [::1]:6432}, {@code unix:/tmp/.s.PGSQL.6432}. */
    public List<String> listening() {
        return listeners.describe();
    }

    /** The Unix socket's file ({@code <unix_socket_dir>/.s.PGSQL.<port>}), or null without one. */
    public Path unixSocket() {
        return listeners.unixSocket();
    }

    /** Where {@code metrics_listen} serves {@code /metrics}, with the port it bound; empty when it is off. */
    public Optional<InetSocketAddress> metricsAddress() {
        return Optional.ofNullable(metrics).map(PrometheusEndpoint::address);
    }

    /** Removes the Unix socket's file and lock without closing anything: for an exit that skips {@link #close()}. */
    public void removeUnixSocket() {
        listeners.removeUnixSocketFile();
    }

    /** The pools, for SHOW POOLS-style monitoring and administration. */
    public PoolRegistry<ServerConnection> registry() {
        return registry;
    }

    /**
     * The clients of the pool of ({@code database}, {@code user}) pinned to their server by session state
     * (pin_session_state), per reason.
     */
    public PinCounts pinCounts(String database, String user) {
        return context.pinCounts(new PoolKey(database, user));
    }

    /** Clients logged in now. */
    public int clientCount() {
        return context.clientCount();
    }

    /** The clients logged in to a database now, each with its socket. */
    Collection<ClientConnection> clients() {
        return context.clients();
    }

    /**
     * The proxy's executor for what blocks and so runs off the event loops: its RELOAD, SET and SHUTDOWN, name
     * lookups, TLS setup. A few daemon threads, none while idle; it takes no work once the proxy is closed.
     */
    public Executor blockingWork() {
        return transport.blockingWork();
    }

    public boolean isEpoll() {
        return transport.isEpoll();
    }

    /** The transport the event loops run (pgmux's transport setting, or NIO where epoll could not load). */
    public TransportKind transport() {
        return transport.kind();
    }

    /**
     * Stops accepting clients, lets transactions in flight finish for up to the drain timeout (new ones are
     * refused with {@code pooler is shutting down}), then closes every client and server connection.
     */
    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            // another thread closes: done once it is, not before
            closed.join();
            return;
        }
        try {
            context.shutdownBegins();
            listeners.close();
            try {
                registry.closeGracefully().toCompletableFuture().get(drainTimeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                // what did not drain in time is closed below
            }
            clients.close().awaitUninterruptibly(drainTimeout.toMillis());
            registry.close();
            if (metrics != null) {
                metrics.close();
            }
            transport.shutdown().syncUninterruptibly();
        } finally {
            closed.complete(null);
        }
    }

    /**
     * PgBouncer's SHUTDOWN WAIT_FOR_SERVERS: stops accepting on TCP (the Unix socket still takes the admin console,
     * and refuses other clients with {@code pooler is shutting down}), fails those waiting for a server with
     * {@code server shutting down}, lets transactions in flight finish however long they take, then closes
     * everything. What else should end it sooner is {@link #close()} from another thread, or leaving the process.
     */
    public void closeWaitForServers() {
        if (closed.isDone()) {
            return;
        }
        context.shutdownBegins();
        listeners.closeTcp();
        registry.closeGracefully().toCompletableFuture().join();
        close();
    }

    /**
     * PgBouncer's SHUTDOWN WAIT_FOR_CLIENTS: stops accepting on TCP (the Unix socket still takes the admin console,
     * and refuses other clients with {@code pooler is shutting down}) and closes once every client has left on its
     * own.
     *
     * @throws InterruptedException when interrupted while clients remain
     */
    public void closeWaitForClients() throws InterruptedException {
        if (closed.isDone()) {
            return;
        }
        context.shutdownBegins();
        listeners.closeTcp();
        while (!clients.isEmpty()) {
            for (Channel client : clients) {
                client.closeFuture().await();
            }
        }
        close();
    }

    /** The admin console's SHUTDOWN, on a thread of its own: closing blocks. */
    private void shutdown(AdminConsole.Shutdown mode) {
        try {
            switch (mode) {
                case IMMEDIATE -> close();
                case WAIT_FOR_SERVERS -> closeWaitForServers();
                case WAIT_FOR_CLIENTS -> closeWaitForClients();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
        }
    }

    /** The admin console's PAUSE for every database; completes once no server is in use. */
    public CompletionStage<Void> pause() {
        return console.pause();
    }

    /** The admin console's RESUME for every database. */
    public void resume() {
        console.resume();
    }

    /** Whether a shutdown (close, SHUTDOWN or its WAIT_FOR_ forms) has begun. */
    public boolean isShuttingDown() {
        return context.isShuttingDown();
    }

    /**
     * The admin console's RELOAD: loads the configuration again from where it came from and applies it. Either
     * way the {@link #onSettingsApplied} listener hears of the settings in effect afterwards: PgBouncer reopens its
     * logfile at the end of every RELOAD, of a broken ini too, and logrotate relies on that.
     *
     * @throws IllegalStateException when the proxy was not configured from a file
     * @throws Exception what loading the configuration threw; the running settings are kept then
     */
    public void reload() throws Exception {
        if (reloadFrom == null) {
            throw new IllegalStateException("the proxy was not started from a configuration file");
        }
        try {
            reload(reloadFrom.load(settings.get(ProxySetting.CONFFILE)));
        } finally {
            settingsApplied.accept(settings);
        }
    }

    /** Where RELOAD loads the configuration from. */
    @FunctionalInterface
    public interface ConfigSource {
        /**
         * A fresh builder.
         *
         * @param conffile the conffile setting of now: the file to read, null when the proxy was built in code
         */
        Builder load(Path conffile) throws Exception;
    }

    /**
     * RELOAD: applies what a running proxy can change from a freshly loaded configuration, as PgBouncer does:
     * databases added, changed (new server connections go to the new target; those open close once released) and
     * removed (their clients are disconnected with {@code database removed}), the users and secrets of the auth
     * file, the settings {@link ProxySetting} marks as reloadable, and the pool settings per database and per user.
     * The rest takes a restart, and is logged as such.
     */
    private void reload(Builder fresh) {
        ProxySettings next = fresh.settings.build();
        // Certificate, hba and ident files are read first, outside the lock; one that cannot be used fails RELOAD
        // as a whole.
        ProxySettings reloaded = settings.reloaded(next);
        FromFiles files = new FromFiles(fresh.clientTls(reloaded), serverTls(transport, reloaded, fresh.databases),
                ClientAuthentication.of(reloaded, fresh.authByDatabase));
        apply(fresh, next, files);
    }

    /** What RELOAD and SET read from files, each null when it did not change. */
    private record FromFiles(ClientTls clientTls, ServerTls serverTls, ClientAuthentication authentication) {
    }

    private synchronized void apply(Builder fresh, ProxySettings next, FromFiles files) {
        PoolOverrides overrides = fresh.overrides.build();
        overrides.validate(next.pool());
        ProxySettings reloaded = settings.reloaded(next);
        Map<String, ServerTarget> configured = resolve(fresh.databases, reloaded);
        Map<String, ServerTarget> running = AutoDatabases.listed(configured);
        List<String> restartOnly = new ArrayList<>();
        settings.restartOnlyChanges(next).forEach(s -> restartOnly.add(s.configName()));
        if (!restartOnly.isEmpty()) {
            log.warn("RELOAD: changes to {} take effect only after a restart", String.join(", ", restartOnly));
        }
        Map<String, ServerTarget> before = connectors.targets();
        ProxySettings settingsBefore = settings;
        pinSessionStateByDatabase = Map.copyOf(fresh.pinSessionStateByDatabase);
        clientLimits = fresh.clientLimits.copy();
        databases = Map.copyOf(fresh.databases);
        users = carryKeys(users, fresh.users);
        context.users(users);
        authByDatabase = Map.copyOf(fresh.authByDatabase);
        userLimits = fresh.userLimits();
        applySettings(reloaded, overrides, files);
        Set<String> autoMoved = context.autoDatabases().reloaded(configured);
        // the connectors first, so that a client finding the database finds its server too
        connectors.update(running, users, reloaded, files.serverTls());
        closeServersOnServerTlsChange(settingsBefore, reloaded);
        context.databases(running);
        console.databases(running);
        autoMoved.forEach(name -> softEvict(name, "RELOAD: auto-database {} changed: its server connections close"
                + " once released"));
        before.forEach((name, target) -> {
            ServerTarget now = running.get(name);
            if (now == null) {
                log.info("RELOAD: database {} removed", name);
                console.databaseRemoved(name);
                registry.removeDatabase(name);
            } else if (!now.equals(target)) {
                softEvict(name, "RELOAD: database {} changed: its server connections close once released");
            }
        });
        running.keySet().stream().filter(name -> !before.containsKey(name))
                .forEach(name -> log.info("RELOAD: new database {}", name));
    }

    /** The servers of {@code database}'s pools close once released, logged with {@code message}. */
    private void softEvict(String database, String message) {
        log.info(message, database);
        registry.pools().stream().filter(p -> p.key().database().equals(database))
                .forEach(io.pgmux.core.pool.Pool::softEvictConnections);
    }

    /**
     * The admin console's SET: one global setting changed at once, as RELOAD would change it. A client_tls_* or
     * server_tls_* value the TLS cannot be set up with is taken all the same while the TLS in use stays, as in
     * PgBouncer: a key and its certificate change one SET at a time.
     *
     * @return PgBouncer's NOTICE when the TLS in use stays, else empty
     * @throws IllegalArgumentException for a value the setting cannot take, or a file that cannot be read
     */
    public Optional<String> set(ProxySetting setting, String value) throws IOException {
        Optional<String> notice = applySet(setting, value);
        settingsApplied.accept(settings);
        return notice;
    }

    private synchronized Optional<String> applySet(ProxySetting setting, String value) throws IOException {
        ProxySettings before = settings;
        ProxySettings next = settings.with(setting, value, configDirectory);
        String name = setting.configName();
        boolean tls = name.startsWith(CLIENT_TLS_PREFIX) || name.startsWith(SERVER_TLS_PREFIX);
        FromFiles files;
        Optional<String> notice = Optional.empty();
        try {
            files = new FromFiles(name.startsWith(CLIENT_TLS_PREFIX) ? clientTlsOf.apply(next) : null,
                    name.startsWith(SERVER_TLS_PREFIX) ? serverTls(transport, next, databases) : null,
                    name.startsWith("auth_") || setting == ProxySetting.SCRAM_ITERATIONS
                            ? ClientAuthentication.of(next, authByDatabase) : null);
        } catch (IllegalArgumentException e) {
            if (!tls) {
                throw e;
            }
            log.warn("admin SET {}: {}; the TLS in use stays", name, e.getMessage());
            files = new FromFiles(null, null, null);
            notice = Optional.of("TLS settings could not be applied, still using old configuration");
        }
        if (setting == ProxySetting.AUTH_FILE) {
            Path file = next.get(ProxySetting.AUTH_FILE);
            users = carryKeys(users, file == null ? UserSecrets.of(Map.of()) : UserList.load(file));
            context.users(users);
        }
        applySettings(next, registry.overrides(), files);
        Map<String, ServerTarget> configured = resolve(databases, next);
        context.autoDatabases().reloaded(configured);
        connectors.update(AutoDatabases.listed(configured), users, next, files.serverTls());
        if (files.serverTls() != null) {
            closeServersOnServerTlsChange(before, next);
        }
        return notice;
    }

    /**
     * As PgBouncer: when a server_tls_* setting changed and TLS to servers was or is allowed, every server
     * connection closes once released ({@code close_needed}), so that none goes on under the old, perhaps weaker,
     * TLS settings. Called once the connectors use the new ones.
     */
    private void closeServersOnServerTlsChange(ProxySettings before, ProxySettings after) {
        boolean used = before.get(ProxySetting.SERVER_TLS_SSLMODE) != TlsMode.DISABLE
                || after.get(ProxySetting.SERVER_TLS_SSLMODE) != TlsMode.DISABLE;
        if (used && SERVER_TLS.stream().anyMatch(s -> !Objects.equals(before.get(s), after.get(s)))) {
            log.info("server TLS settings changed: every server connection closes once released");
            registry.pools().forEach(io.pgmux.core.pool.Pool::softEvictConnections);
        }
    }

    /**
     * Calls {@code listener} with the settings each RELOAD (one that failed too) and SET leaves in effect, from then
     * on, on the thread that ran them and outside the proxy's lock (the listener may open files).
     */
    public void onSettingsApplied(Consumer<ProxySettings> listener) {
        this.settingsApplied = Objects.requireNonNull(listener, "listener");
    }

    /**
     * Puts the settings RELOAD and SET change into effect, each where PgBouncer reads it: the client timeouts for
     * every client from the janitor's next pass, the rest for the clients, server connections and sockets that
     * come afterwards. What {@code files} holds as null is kept as it is.
     */
    private void applySettings(ProxySettings next, PoolOverrides overrides, FromFiles files) {
        registry.reconfigure(next.pool(), overrides);
        settings = next;
        context.connectionLog().settings(next);
        statsLog.enabled(next.get(ProxySetting.LOG_STATS));
        registry.statsPeriod(next.get(ProxySetting.STATS_PERIOD));
        if (files.clientTls() != null) {
            context.clientTls(files.clientTls());
        }
        if (files.authentication() != null) {
            files.authentication().applyTo(context, connectors.queried);
        }
        context.clientTimeouts().loginTimeout(next.get(ProxySetting.CLIENT_LOGIN_TIMEOUT));
        context.clientTimeouts().limits(Builder.limits(next::get), userLimits);
        context.cancelSender().waitTimeout(next.get(ProxySetting.CANCEL_WAIT_TIMEOUT));
        context.startupParameters(Set.copyOf(next.<List<String>>get(ProxySetting.IGNORE_STARTUP_PARAMETERS)),
                next.<Integer>get(ProxySetting.APPLICATION_NAME_ADD_HOST) != 0);
        context.maxPreparedStatements(next.get(ProxySetting.MAX_PREPARED_STATEMENTS));
        context.maxMessageLength(Builder.maxMessageLength(next));
        TcpOptions tcp = TcpOptions.of(next);
        transport.tcp(tcp);
        listeners.tune(tcp, transport.kind());
        context.pinSessionState(next.get(ProxySetting.PIN_SESSION_STATE), pinSessionStateByDatabase);
        context.autoDatabases().idleTimeout(next.get(ProxySetting.AUTODB_IDLE_TIMEOUT));
        clientLimits.applyTo(context, next);
        context.notices(next.get(ProxySetting.LOGIN_NOTIFY_MESSAGE), next.get(ProxySetting.QUERY_WAIT_NOTIFY));
        context.serverFastClose(next.get(ProxySetting.SERVER_FAST_CLOSE));
        context.idlePools().timeout(next.get(ProxySetting.POOL_IDLE_TIMEOUT));
        console.reloaded(next);
    }

    /** The databases with server_tls_sslmode applied, and unix_socket_dir to those without host. */
    private static Map<String, ServerTarget> resolve(Map<String, ServerTarget> configured, ProxySettings s) {
        TlsMode defaultMode = s.get(ProxySetting.SERVER_TLS_SSLMODE);
        String socketDir = s.get(ProxySetting.UNIX_SOCKET_DIR);
        Map<String, ServerTarget> running = new LinkedHashMap<>();
        configured.forEach((name, target) -> running.put(name,
                target.withDefaultTlsMode(defaultMode).withSocketDirectory(socketDir)));
        return Map.copyOf(running);
    }

    /**
     * The server TLS of the server_tls_* settings, for the sslmodes {@code databases} use with server_tls_sslmode
     * applied; its files are read now.
     *
     * @throws IllegalArgumentException naming the setting whose file cannot be used
     */
    private static ServerTls serverTls(Transport transport, ProxySettings s, Map<String, ServerTarget> databases) {
        Set<TlsMode> modes = EnumSet.noneOf(TlsMode.class);
        resolve(databases, s).values().forEach(target -> modes.add(target.tlsMode()));
        return ServerTls.of(transport.blockingWork(), modes, s.get(ProxySetting.SERVER_TLS_CA_FILE), s.get(ProxySetting.SERVER_TLS_CERT_FILE),
                s.get(ProxySetting.SERVER_TLS_KEY_FILE), TlsProtocols.parse(
                        ProxySetting.SERVER_TLS_PROTOCOLS.configName(), s.get(ProxySetting.SERVER_TLS_PROTOCOLS)),
                TlsCipherSuites.parse("server", s.get(ProxySetting.SERVER_TLS_CIPHERS),
                        s.get(ProxySetting.SERVER_TLS13_CIPHERS)));
    }

    /**
     * {@code fresh}, the auth file read again, with the SCRAM passthrough keys clients left on an unchanged
     * verifier kept.
     */
    private static UserSecrets carryKeys(UserSecrets previous, UserSecrets fresh) {
        if (fresh instanceof UserList list) {
            for (String user : list.users()) {
                if (list.find(user).orElse(null) instanceof ScramSecret now
                        && previous.find(user).orElse(null) instanceof ScramSecret before) {
                    now.keepKeysOf(before);
                }
            }
        }
        return fresh;
    }

    /** Completes once the proxy is closed, by {@link #close()} or the admin console's SHUTDOWN. */
    public CompletionStage<Void> closeFuture() {
        return closed;
    }

    /** Configures and starts a proxy. */
    public static final class Builder {
        private final Map<String, ServerTarget> databases = new LinkedHashMap<>();
        private final Map<String, PinSessionState> pinSessionStateByDatabase = new LinkedHashMap<>();
        private final EntryLimits clientLimits = new EntryLimits(new LinkedHashMap<>(), new LinkedHashMap<>());
        /** The auth_user, auth_query and auth_dbname of [databases] entries that set their own. */
        private final Map<String, Map<ProxySetting, String>> authByDatabase = new LinkedHashMap<>();
        private final ProxySettings.Builder settings = ProxySettings.builder();
        private final PoolOverrides.Builder overrides = PoolOverrides.builder();
        /** The [users] entries' own client timeouts. */
        private final Map<String, Map<ProxySetting, Duration>> userTimeouts = new LinkedHashMap<>();
        private UserSecrets users = UserSecrets.of(Map.of());
        private SslContext clientTlsContext;
        private Duration janitorPeriod = Duration.ofMillis(333);
        private Duration drainTimeout = Duration.ofSeconds(10);
        private ConfigSource reloadFrom;
        private Path configDirectory = Path.of("");
        private MetricsTrackerFactory metricsTrackerFactory;
        /** The MeterRegistry behind {@link #metricsTrackerFactory}, when it was given as one. */
        private Object meterRegistry;
        private boolean registerMbeans;

        private Builder() {
            // in code, no Unix socket unless asked for: an application's proxy has no business in /tmp
            settings.set(ProxySetting.UNIX_SOCKET_DIR, "");
        }

        /**
         * PgBouncer's listen_addr and listen_port; port 0 picks a free one. {@code hosts} may list several
         * addresses, IPv4 or IPv6, separated by commas ({@code "127.0.0.1,::1"}); {@code *} is every address, and
         * empty listens on the Unix socket only.
         */
        public Builder listen(String hosts, int port) {
            settings.set(ProxySetting.LISTEN_ADDR, Objects.requireNonNull(hosts, "hosts"));
            settings.put(ProxySetting.LISTEN_PORT, port);
            return this;
        }

        /**
         * PgBouncer's unix_socket_dir: also listen on {@code <directory>/.s.PGSQL.<port>}, so that
         * {@code psql -h directory -p port} connects (epoll only); null for none, the default in code (a
         * pgbouncer.ini without the key gets PgBouncer's /tmp). The OS user running the proxy may then log in to
         * the admin console there as user {@code pgbouncer} without a password.
         */
        public Builder unixSocketDir(Path directory) {
            settings.set(ProxySetting.UNIX_SOCKET_DIR, directory == null ? "" : directory.toString());
            return this;
        }

        /** A database clients connect to by {@code name}, as a {@code postgresql://} URL. */
        public Builder database(String name, String url) {
            return database(name, ServerTargets.fromUrl(url));
        }

        public Builder database(String name, ServerTarget target) {
            databases.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(target, "target"));
            return this;
        }

        public Builder poolMode(PoolMode mode) {
            settings.pool().poolMode(mode);
            return this;
        }

        public Builder defaultPoolSize(int size) {
            settings.pool().defaultPoolSize(size);
            return this;
        }

        public Builder maxClientConn(int max) {
            settings.pool().maxClientConn(max);
            return this;
        }

        public Builder queryWaitTimeout(Duration timeout) {
            settings.pool().queryWaitTimeout(timeout);
            return this;
        }

        /**
         * Any {@code [pgbouncer]} setting pgmux takes, by its PgBouncer name (pool settings also by pgmux's), e.g.
         * {@code set("server_idle_timeout", "60")}; file names are relative to the working directory.
         */
        public Builder set(String name, String value) {
            return set(name, value, Path.of(""));
        }

        /**
         * As {@link #set(String, String)}, with file names relative to {@code base}; auth_file is read now.
         *
         * @throws IllegalArgumentException naming the setting, for an unknown name or a value that cannot be used
         */
        public Builder set(String name, String value, Path base) {
            settings.set(name, value, base);
            configDirectory = base;
            if (ProxySetting.global(name) == ProxySetting.AUTH_FILE) {
                readAuthFile(settings.get(ProxySetting.AUTH_FILE));
            }
            return this;
        }

        /**
         * A pool setting of every pool of {@code database} that differs from the global one, by the global
         * setting's name (PgBouncer's {@code pool_size=5} in a {@code [databases]} entry is
         * {@code databaseSetting("app", "default_pool_size", "5")}); also the database's own auth_user,
         * auth_query and auth_dbname.
         */
        public Builder databaseSetting(String database, String name, String value) {
            ProxySetting named = ProxySetting.named(name);
            if (named == ProxySetting.AUTH_USER || named == ProxySetting.AUTH_QUERY
                    || named == ProxySetting.AUTH_DBNAME) {
                authByDatabase.computeIfAbsent(Objects.requireNonNull(database, "database"),
                        d -> new EnumMap<>(ProxySetting.class)).put(named, Objects.requireNonNull(value, "value"));
                return this;
            }
            if (named == ProxySetting.MAX_DB_CLIENT_CONNECTIONS) {
                clientLimits.byDatabase.put(Objects.requireNonNull(database, "database"),
                        entryCount(named, "database " + database, value));
                return this;
            }
            if (named == ProxySetting.PIN_SESSION_STATE) {
                try {
                    pinSessionStateByDatabase.put(Objects.requireNonNull(database, "database"),
                            PinSessionState.fromConfig(value));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("database " + database + ": " + e.getMessage(), e);
                }
                return this;
            }
            overrides.database(database, name, value);
            return this;
        }

        /**
         * pgmux's pin_session_state (default on): in transaction and statement mode, a client whose transaction
         * leaves session state on its server (LISTEN, session advisory locks, temporary tables, WITH HOLD cursors,
         * SQL PREPARE, LOAD) keeps that server until the state is gone ({@code ON}), loses the state as with
         * PgBouncer ({@code OFF}), or gets an error ({@code ERROR}). A database may set its own with
         * {@code databaseSetting(name, "pin_session_state", "off")}.
         */
        public Builder pinSessionState(PinSessionState mode) {
            settings.put(ProxySetting.PIN_SESSION_STATE, Objects.requireNonNull(mode, "mode"));
            return this;
        }

        /**
         * A {@code [users]} entry of {@code user}, with settings or without: PgBouncer knows the user then, and SHOW
         * USERS lists it.
         */
        public Builder user(String user) {
            overrides.user(user);
            return this;
        }

        /**
         * A pool setting of every pool of {@code user}, by the global setting's name (PgBouncer's
         * {@code bob = pool_mode=session} in {@code [users]} is {@code userSetting("bob", "pool_mode", "session")});
         * it wins over the same setting of the pool's database.
         */
        public Builder userSetting(String user, String name, String value) {
            ProxySetting own = ProxySetting.named(name);
            if (own == ProxySetting.MAX_USER_CLIENT_CONNECTIONS) {
                clientLimits.byUser.put(Objects.requireNonNull(user, "user"), entryCount(own, "user " + user, value));
                return this;
            }
            if (own != null && own.poolKey() == null && own.takenIn(Scope.USER)) {
                Duration timeout;
                try {
                    timeout = (Duration) own.parse(value);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("user " + user + ": " + e.getMessage(), e);
                }
                userTimeouts.computeIfAbsent(Objects.requireNonNull(user, "user"), u -> new EnumMap<>(ProxySetting.class))
                        .put(own, timeout);
                return this;
            }
            overrides.user(user, name, value);
            return this;
        }

        /** An entry's whole number of 0 or more; -1, as 0, leaves the global value in force. */
        private static int entryCount(ProxySetting setting, String owner, String value) {
            if (value.strip().equals("-1")) {
                return 0;
            }
            try {
                return (Integer) setting.parse(value);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(owner + ": " + e.getMessage(), e);
            }
        }

        public Builder authType(AuthType type) {
            settings.put(ProxySetting.AUTH_TYPE, Objects.requireNonNull(type, "type"));
            return this;
        }

        /** PgBouncer's auth_file (userlist.txt format), read now. */
        public Builder authFile(Path file) {
            settings.put(ProxySetting.AUTH_FILE, file);
            return readAuthFile(file);
        }

        private Builder readAuthFile(Path file) {
            if (file == null) {
                return this;
            }
            try {
                this.users = UserList.load(file);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read auth_file " + file + ": "
                        + (e instanceof NoSuchFileException ? "no such file" : e.getMessage()), e);
            }
            return this;
        }

        /** Users and their secrets (plaintext, md5 hash or SCRAM verifier) instead of an auth file. */
        public Builder users(Map<String, String> secretsByUser) {
            this.users = UserSecrets.of(secretsByUser);
            return this;
        }

        public Builder users(UserSecrets secrets) {
            this.users = Objects.requireNonNull(secrets, "secrets");
            return this;
        }

        /**
         * TLS for clients that ask for it, from a context made by the caller instead of the client_tls_* files;
         * client_tls_sslmode still decides whether it is required (left at disable, it becomes prefer). Without
         * either, SSLRequest is answered 'N'.
         */
        public Builder clientTls(SslContext context) {
            this.clientTlsContext = context;
            return this;
        }

        /**
         * PgBouncer's client_tls_sslmode (default disable); the certificate and the other client_tls_* settings by
         * {@link #set(String, String)}, e.g. {@code set("client_tls_cert_file", "server.crt")}.
         */
        public Builder clientTlsSslMode(TlsMode mode) {
            settings.put(ProxySetting.CLIENT_TLS_SSLMODE, Objects.requireNonNull(mode, "mode"));
            return this;
        }

        private ClientTls clientTls(ProxySettings s) {
            return clientTlsContext != null ? ClientTls.of(s.get(ProxySetting.CLIENT_TLS_SSLMODE), clientTlsContext)
                    : ClientTls.of(s);
        }

        /**
         * PgBouncer's server_tls_sslmode (default prefer): TLS towards the servers of databases whose URL or
         * connect string names no sslmode of its own. verify-ca and verify-full check the certificate against
         * {@link #serverTlsCaFile(Path)}, or the JDK's trusted CAs without one.
         */
        public Builder serverTlsSslMode(TlsMode mode) {
            settings.put(ProxySetting.SERVER_TLS_SSLMODE, Objects.requireNonNull(mode, "mode"));
            return this;
        }

        /** PgBouncer's server_tls_ca_file: PEM certificates that verify-ca and verify-full trust. */
        public Builder serverTlsCaFile(Path file) {
            settings.put(ProxySetting.SERVER_TLS_CA_FILE, file);
            return this;
        }

        /**
         * PgBouncer's server_tls_cert_file and server_tls_key_file: a PEM certificate (chain) and its unencrypted
         * PEM key (PKCS#8, PKCS#1 or SEC1), presented to servers that ask for a client certificate; null for none.
         */
        public Builder serverTlsClientCertificate(Path certFile, Path keyFile) {
            settings.put(ProxySetting.SERVER_TLS_CERT_FILE, certFile);
            settings.put(ProxySetting.SERVER_TLS_KEY_FILE, keyFile);
            return this;
        }

        /** PgBouncer's server_tls_protocols, e.g. {@code secure} (TLS 1.2 and 1.3, the default) or {@code tlsv1.3}. */
        public Builder serverTlsProtocols(String protocols) {
            settings.set(ProxySetting.SERVER_TLS_PROTOCOLS, protocols);
            return this;
        }

        /** PgBouncer's client_login_timeout (default 60 s); zero disables it. */
        public Builder clientLoginTimeout(Duration timeout) {
            settings.put(ProxySetting.CLIENT_LOGIN_TIMEOUT, Objects.requireNonNull(timeout, "timeout"));
            return this;
        }

        /** PgBouncer's client_idle_timeout: clients idle outside a transaction this long are disconnected; zero (the default) disables it. */
        public Builder clientIdleTimeout(Duration timeout) {
            settings.put(ProxySetting.CLIENT_IDLE_TIMEOUT, Objects.requireNonNull(timeout, "timeout"));
            return this;
        }

        /**
         * PgBouncer's idle_transaction_timeout: a client idle inside a transaction this long is disconnected and
         * its server connection closed (the transaction rolls back); zero (the default) disables it.
         */
        public Builder idleTransactionTimeout(Duration timeout) {
            settings.put(ProxySetting.IDLE_TRANSACTION_TIMEOUT, Objects.requireNonNull(timeout, "timeout"));
            return this;
        }

        /**
         * PgBouncer's query_timeout: a client whose request the server has not answered in full within it (waiting
         * for a server included) is disconnected with FATAL 08P01 {@code query timeout} and its server connection
         * closed; zero (the default) disables it. A user may set its own with {@code userSetting}.
         */
        public Builder queryTimeout(Duration timeout) {
            settings.put(ProxySetting.QUERY_TIMEOUT, Objects.requireNonNull(timeout, "timeout"));
            return this;
        }

        /**
         * PgBouncer's transaction_timeout: a client whose transaction has been open this long is disconnected with
         * FATAL 08P01 {@code transaction timeout} and its server connection closed (the transaction rolls back);
         * zero (the default) disables it.
         */
        public Builder transactionTimeout(Duration timeout) {
            settings.put(ProxySetting.TRANSACTION_TIMEOUT, Objects.requireNonNull(timeout, "timeout"));
            return this;
        }

        /** How often waiters, idle connections and the clients' timeouts are checked (default 333 ms). */
        public Builder janitorPeriod(Duration period) {
            this.janitorPeriod = Objects.requireNonNull(period, "period");
            return this;
        }

        /**
         * The period whose per-second rates and mean times SHOW STATS_AVERAGES, SHOW STATS's avg_* columns and the
         * log_stats line report (PgBouncer's stats_period; default 60 s).
         *
         * @throws IllegalArgumentException below 1 second
         */
        public Builder statsPeriod(Duration period) {
            settings.put(ProxySetting.STATS_PERIOD, Objects.requireNonNull(period, "period"));
            return this;
        }

        /** How long {@link PgMuxProxy#close()} lets transactions finish (default 10 s). */
        public Builder drainTimeout(Duration timeout) {
            this.drainTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * PgBouncer's max_prepared_statements (default 200): named prepared statements each server keeps for
         * clients in transaction and statement mode; 0 passes named statements through unchanged.
         */
        public Builder maxPreparedStatements(int max) {
            settings.put(ProxySetting.MAX_PREPARED_STATEMENTS, max);
            return this;
        }

        /**
         * PgBouncer's admin_users: users who may run every admin console command (database {@code pgbouncer} or
         * {@code pgmux}), as a comma-separated list; default none.
         */
        public Builder adminUsers(String commaSeparated) {
            settings.set(ProxySetting.ADMIN_USERS, Objects.requireNonNull(commaSeparated, "users"));
            return this;
        }

        /** PgBouncer's stats_users: users who may run the admin console's SHOW commands; default none. */
        public Builder statsUsers(String commaSeparated) {
            settings.set(ProxySetting.STATS_USERS, Objects.requireNonNull(commaSeparated, "users"));
            return this;
        }

        /**
         * Makes the admin console's RELOAD apply {@code source}'s settings: a fresh builder, typically loaded again
         * from the file this one came from ({@link io.pgmux.proxy.ProxyConfigLoader#load} sets it).
         */
        public Builder reloadFrom(Callable<Builder> source) {
            this.reloadFrom = conffile -> source.call();
            return this;
        }

        /**
         * Makes the admin console's RELOAD read the file its conffile setting names at that time, as PgBouncer
         * does: the file the proxy was loaded from, unless the file or SET conffile named another.
         */
        public Builder reloadFromFile(ConfigSource source) {
            this.reloadFrom = source;
            return this;
        }

        /** Receives every pool's events and gauges (HikariCP's metrics SPI); default none. */
        public Builder metricsTrackerFactory(MetricsTrackerFactory factory) {
            this.metricsTrackerFactory = factory;
            this.meterRegistry = null;
            return this;
        }

        /**
         * Publishes every pool's {@code pgmux.*} meters to a Micrometer {@code MeterRegistry}, which must then be
         * on the class path.
         *
         * @throws IllegalArgumentException for an object that is not a MeterRegistry
         */
        public Builder metricRegistry(Object meterRegistry) {
            this.metricsTrackerFactory = MicrometerMetricsTrackerFactory.forRegistry(
                    Objects.requireNonNull(meterRegistry, "meterRegistry"));
            this.meterRegistry = meterRegistry;
            return this;
        }

        /**
         * Registers each pool's {@code PgMuxPoolMXBean} as {@code io.pgmux:type=Pool,name="<database>/<user>"} with
         * the platform MBeanServer while the pool exists, as the JDBC driver's {@code registerMbeans} does; default
         * off (the standalone proxy turns it on).
         */
        public Builder registerMbeans(boolean register) {
            this.registerMbeans = register;
            return this;
        }

        /**
         * PgBouncer's max_packet_size (default 2147483647): a client message declaring a longer length ends the
         * client with FATAL 08P01 before any of its body is read. PostgreSQL's own limit (1 GiB - 2) applies
         * whatever the value.
         *
         * @throws IllegalArgumentException below 1024 bytes, which a login's messages need
         */
        public Builder maxPacketSize(int bytes) {
            settings.put(ProxySetting.MAX_PACKET_SIZE, bytes);
            return this;
        }

        /** Event loop threads; 0 (the default) means one per two cores, at least one. */
        public Builder threads(int threads) {
            settings.put(ProxySetting.THREADS, threads);
            return this;
        }

        /**
         * Binds the listener and starts serving.
         *
         * @throws IllegalStateException when no database is configured
         * @throws UncheckedIOException when the address (or metrics_listen's) cannot be bound
         */
        public PgMuxProxy start() {
            if (databases.isEmpty()) {
                throw new IllegalStateException("no database configured: add one with database(name, url)");
            }
            ProxySettings s = settings.build();
            PoolConfig config = s.pool();
            PoolOverrides poolOverrides = overrides.build();
            poolOverrides.validate(config);
            Map<String, ServerTarget> resolved = resolve(databases, s);
            AutoDatabases autoDatabases = new AutoDatabases(resolved, s.get(ProxySetting.AUTODB_IDLE_TIMEOUT));
            Map<String, ServerTarget> targets = AutoDatabases.listed(resolved);
            Transport transport = Transport.create(s.<Integer>get(ProxySetting.THREADS),
                    s.<TransportKind>get(ProxySetting.TRANSPORT), TcpOptions.of(s));
            ServerTls serverTls;
            ClientTls clientTls;
            PrometheusEndpoint metrics;
            try {
                serverTls = serverTls(transport, s, databases);
                clientTls = clientTls(s);
                metrics = startMetrics(s.get(ProxySetting.METRICS_LISTEN));
            } catch (RuntimeException e) {
                transport.shutdown();
                throw e;
            }
            MetricsTrackerFactory trackers = metrics != null ? metrics.trackers() : metricsTrackerFactory;
            UserSecrets secrets = users;
            QueriedUsers queried = new QueriedUsers();
            PreparedStatementLimit maxPrepared =
                    new PreparedStatementLimit(s.get(ProxySetting.MAX_PREPARED_STATEMENTS));
            ConnectionLog connectionLog = new ConnectionLog();
            Connectors connectors = new Connectors(transport, serverTls, maxPrepared, queried, targets, autoDatabases,
                    secrets, s, connectionLog);
            ClientTimeouts.Limits globalLimits = limits(s::get);
            Map<String, ClientTimeouts.Limits> userLimits = userLimits();
            int port = s.get(ProxySetting.LISTEN_PORT);
            AtomicReference<PoolRegistry<ServerConnection>> self = new AtomicReference<>();
            // PgBouncer numbers clients and servers from one counter (SHOW CLIENTS' and SHOW SERVERS' id)
            AtomicLong socketIds = new AtomicLong();
            PoolRegistry<ServerConnection> registry = PoolRegistry.<ServerConnection>builder()
                    .config(config)
                    .overrides(poolOverrides)
                    // an auto-database's pools take the settings of the * entry
                    .configs(key -> self.get().overrides().apply(self.get().config(),
                            autoDatabases.entryName(key.database()), key.user()))
                    .connectors(connectors::create)
                    .janitorPeriod(janitorPeriod)
                    .statsPeriod(s.get(ProxySetting.STATS_PERIOD))
                    .metricsTrackerFactory(trackers)
                    .registerMbeans(registerMbeans)
                    .serverIds(socketIds::incrementAndGet)
                    .build();
            self.set(registry);
            registry.addJanitorChore(() -> autoDatabases.dropIdle(registry, connectors::forget));
            Duration clientLoginTimeout = s.get(ProxySetting.CLIENT_LOGIN_TIMEOUT);
            ClientAuthentication authentication = ClientAuthentication.of(s, authByDatabase);
            ProxyContext context = new ProxyContext(registry, targets, autoDatabases, secrets, s.get(ProxySetting.AUTH_TYPE),
                    clientTls, new CancelSender(transport, s.get(ProxySetting.CANCEL_WAIT_TIMEOUT)),
                    clientLoginTimeout.toMillis(), maxPrepared, socketIds::incrementAndGet, transport.blockingWork());
            context.clientTimeouts().limits(globalLimits, userLimits);
            context.disablePqexec(s.get(ProxySetting.DISABLE_PQEXEC));
            context.maxMessageLength(maxMessageLength(s));
            context.startupParameters(Set.copyOf(s.<List<String>>get(ProxySetting.IGNORE_STARTUP_PARAMETERS)),
                    s.<Integer>get(ProxySetting.APPLICATION_NAME_ADD_HOST) != 0);
            authentication.applyTo(context, queried);
            context.pinSessionState(s.get(ProxySetting.PIN_SESSION_STATE), pinSessionStateByDatabase);
            EntryLimits entryLimits = clientLimits.copy();
            entryLimits.applyTo(context, s);
            context.notices(s.get(ProxySetting.LOGIN_NOTIFY_MESSAGE), s.get(ProxySetting.QUERY_WAIT_NOTIFY));
            context.serverFastClose(s.get(ProxySetting.SERVER_FAST_CLOSE));
            context.idlePools().timeout(s.get(ProxySetting.POOL_IDLE_TIMEOUT));
            registry.addJanitorChore(context.idlePools());
            registry.addJanitorChore(context.clientTimeouts());
            context.connectionLog(connectionLog);
            connectionLog.settings(s);
            StatsLog statsLog = new StatsLog(s.get(ProxySetting.LOG_STATS));
            registry.addStatsPeriodListener(statsLog);
            ChannelGroup clients = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
            AtomicReference<PgMuxProxy> started = new AtomicReference<>();
            ConfigSource source = reloadFrom;
            AdminConsole console = new AdminConsole(context, targets, s,
                    () -> started.get() == null ? port : started.get().port(),
                    mode -> started.get().shutdown(mode),
                    source == null ? null : () -> started.get().reload(),
                    (setting, value) -> started.get().set(setting, value));
            context.adminRoute(console);
            Listeners listeners;
            try {
                listeners = Listeners.bind(transport, s.get(ProxySetting.LISTEN_ADDR), port,
                        s.get(ProxySetting.UNIX_SOCKET_DIR), s.get(ProxySetting.UNIX_SOCKET_MODE),
                        s.get(ProxySetting.UNIX_SOCKET_GROUP), new ChannelInitializer<Channel>() {
                            @Override
                            protected void initChannel(Channel ch) {
                                clients.add(ch);
                                transport.tuneAccepted(ch);
                                ch.pipeline().addLast(ReadGate.NAME, transport.readGate().newHandler());
                                FrontendMessageDecoder decoder = new FrontendMessageDecoder(context.maxMessageLength());
                                ch.pipeline().addLast(new DirectTls(context), MessageEncoder.INSTANCE, decoder,
                                        new ClientConnection(context, decoder));
                            }
                        });
            } catch (RuntimeException e) {
                registry.close();
                if (metrics != null) {
                    metrics.close();
                }
                transport.shutdown();
                throw e;
            }
            context.connectionLog().unixPort(listeners.port());
            context.unixSocketOwnerUid(listeners.unixSocketOwnerUid());
            console.listening(listeners.channels(), transport.readGate());
            PgMuxProxy proxy = new PgMuxProxy(transport, registry, context, listeners, statsLog, clients, drainTimeout,
                    Map.copyOf(databases), Map.copyOf(pinSessionStateByDatabase), entryLimits, s, console, source,
                    connectors, secrets, this::clientTls, configDirectory, metrics, Map.copyOf(authByDatabase),
                    userLimits);
            started.set(proxy);
            return proxy;
        }

        /**
         * metrics_listen's endpoint, or null when it is off. Its libraries are looked for first, so that their
         * absence is a sentence rather than a NoClassDefFoundError.
         */
        private PrometheusEndpoint startMetrics(InetSocketAddress address) {
            if (address == null) {
                return null;
            }
            if (metricsTrackerFactory != null && meterRegistry == null) {
                throw new IllegalArgumentException("metrics_listen publishes pgmux's meters through Micrometer and"
                        + " cannot feed a metricsTrackerFactory of the application's: give a metricRegistry instead");
            }
            for (String name : new String[] {"io.micrometer.prometheusmetrics.PrometheusMeterRegistry",
                    "io.prometheus.metrics.exporter.common.PrometheusScrapeHandler"}) {
                try {
                    Class.forName(name, false, PgMuxProxy.class.getClassLoader());
                } catch (ClassNotFoundException e) {
                    throw new IllegalStateException("metrics_listen needs io.micrometer:micrometer-registry-prometheus"
                            + " and io.prometheus:prometheus-metrics-exporter-common on the class path (the"
                            + " runnable jar has them): " + name + " is missing");
                }
            }
            return PrometheusEndpoint.start(address, meterRegistry);
        }

        /** The [users] entries' own client timeouts. */
        private Map<String, ClientTimeouts.Limits> userLimits() {
            Map<String, ClientTimeouts.Limits> userLimits = new LinkedHashMap<>();
            userTimeouts.forEach((user, own) -> userLimits.put(user,
                    limits(setting -> own.getOrDefault(setting, Duration.ZERO))));
            return Map.copyOf(userLimits);
        }

        /** max_packet_size, within PostgreSQL's limit; a length counts at least its own four bytes. */
        private static int maxMessageLength(ProxySettings s) {
            return Math.max(4, Math.min(s.<Integer>get(ProxySetting.MAX_PACKET_SIZE),
                    FrontendMessageDecoder.DEFAULT_MAX_MESSAGE_LENGTH));
        }

        private static ClientTimeouts.Limits limits(java.util.function.Function<ProxySetting, Duration> value) {
            return new ClientTimeouts.Limits(value.apply(ProxySetting.CLIENT_IDLE_TIMEOUT),
                    value.apply(ProxySetting.IDLE_TRANSACTION_TIMEOUT), value.apply(ProxySetting.QUERY_TIMEOUT),
                    value.apply(ProxySetting.TRANSACTION_TIMEOUT));
        }
    }

    /** The [databases] and [users] entries' own max_db_client_connections and max_user_client_connections. */
    private record EntryLimits(Map<String, Integer> byDatabase, Map<String, Integer> byUser) {
        EntryLimits copy() {
            return new EntryLimits(Map.copyOf(byDatabase), Map.copyOf(byUser));
        }

        void applyTo(ProxyContext context, ProxySettings settings) {
            context.clientLimits().configure(settings.get(ProxySetting.MAX_DB_CLIENT_CONNECTIONS), byDatabase,
                    settings.get(ProxySetting.MAX_USER_CLIENT_CONNECTIONS), byUser);
        }
    }

    /** Every pool's connector, made from the targets and secrets of now; RELOAD and SET rebuild them. */
    private static final class Connectors {
        private final Transport transport;
        private volatile ServerTls serverTls;
        private final PreparedStatementLimit preparedStatements;
        /** The secrets auth_query found, for users not in the auth file. */
        private final QueriedUsers queried;
        /** Where each connector logs the connections it opens and closes. */
        private final ConnectionLog connectionLog;
        private final Map<PoolKey, ReloadableConnector> byPool = new ConcurrentHashMap<>();
        private volatile Map<String, ServerTarget> targets;
        private final AutoDatabases autoDatabases;
        private volatile UserSecrets secrets;
        private volatile int connectTimeoutMillis;

        Connectors(Transport transport, ServerTls serverTls, PreparedStatementLimit preparedStatements,
                QueriedUsers queried,
                Map<String, ServerTarget> targets, AutoDatabases autoDatabases, UserSecrets secrets,
                ProxySettings settings, ConnectionLog connectionLog) {
            this.autoDatabases = autoDatabases;
            this.queried = queried;
            this.connectionLog = connectionLog;
            this.transport = transport;
            this.serverTls = serverTls;
            this.preparedStatements = preparedStatements;
            this.targets = targets;
            this.secrets = secrets;
            this.connectTimeoutMillis = connectTimeoutMillis(settings);
        }

        Map<String, ServerTarget> targets() {
            return targets;
        }

        /** The listed database {@code name}, or the auto-database the * entry makes of it. */
        private ServerTarget target(String name) {
            ServerTarget listed = targets.get(name);
            return listed != null ? listed : autoDatabases.target(name);
        }

        ReloadableConnector create(PoolKey key) {
            ReloadableConnector connector = new ReloadableConnector(build(key, target(key.database())));
            byPool.put(key, connector);
            return connector;
        }

        /**
         * New server connections go to these targets, log in with these secrets and use this TLS (null keeps the
         * one in use); a removed database's pools go.
         */
        void update(Map<String, ServerTarget> targets, UserSecrets secrets, ProxySettings settings,
                ServerTls serverTls) {
            this.targets = targets;
            this.secrets = secrets;
            this.connectTimeoutMillis = connectTimeoutMillis(settings);
            if (serverTls != null) {
                this.serverTls = serverTls;
            }
            byPool.keySet().removeIf(key -> target(key.database()) == null);
            byPool.forEach((key, connector) -> connector.replace(build(key, target(key.database()))));
        }

        /** The auto-database {@code database} was dropped with its pools. */
        void forget(String database) {
            byPool.keySet().removeIf(key -> key.database().equals(database));
        }

        private NettyServerConnector build(PoolKey key, ServerTarget target) {
            String loginUser = target.loginUser(key.user());
            Supplier<Secret> secret;
            if (target.password() != null) {
                Secret configured = new PlaintextSecret(target.password());
                secret = () -> configured;
            } else if (target.user() != null && !target.user().isEmpty()) {
                // a forced user without password= logs in with the auth file's secret, as in PgBouncer
                secret = () -> secrets.find(loginUser).orElse(null);
            } else {
                // a user auth_query found has the secret it last returned, which a later login may replace; the
                // auth file's is read at each login, so a RELOAD's holds from then on
                secret = () -> secrets.find(loginUser).orElseGet(() -> queried.find(key.database(), loginUser));
            }
            return new NettyServerConnector(transport, target, loginUser, secret, serverTls, connectTimeoutMillis,
                    preparedStatements::tracking).logTo(connectionLog, key.database());
        }

        private static int connectTimeoutMillis(ProxySettings settings) {
            return (int) Math.min(Integer.MAX_VALUE,
                    Math.max(1, TimeUnit.NANOSECONDS.toMillis(settings.pool().serverConnectTimeoutNanos())));
        }
    }
}
