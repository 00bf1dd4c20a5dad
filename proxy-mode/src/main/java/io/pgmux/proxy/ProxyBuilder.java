package io.pgmux.proxy;

import io.netty.handler.ssl.SslContext;
import io.pgmux.core.config.PoolMode;
import io.pgmux.core.config.PoolOverrides;
import io.pgmux.core.stats.MetricsTrackerFactory;
import io.pgmux.core.stats.micrometer.MicrometerMetricsTrackerFactory;
import io.pgmux.proxy.auth.AuthType;
import io.pgmux.proxy.auth.UserList;
import io.pgmux.proxy.auth.UserSecrets;
import io.pgmux.proxy.client.ClientSettings;
import io.pgmux.proxy.client.ClientTimeouts;
import io.pgmux.proxy.client.JanitorPeriod;
import io.pgmux.proxy.server.PeerEntry;
import io.pgmux.proxy.config.PinSessionState;
import io.pgmux.proxy.config.ProxySetting;
import io.pgmux.proxy.config.ProxySettings;
import io.pgmux.proxy.config.Scope;
import io.pgmux.proxy.config.TlsMode;
import io.pgmux.proxy.fleet.FleetSetting;
import io.pgmux.proxy.server.ServerPasswordSource;
import io.pgmux.proxy.server.ServerTarget;
import io.pgmux.proxy.server.ServerTargets;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;

/** Configures and starts a proxy. */
public final class ProxyBuilder {
    private final Map<String, ServerTarget> databases = new LinkedHashMap<>();
    private final Map<String, PinSessionState> pinSessionStateByDatabase = new LinkedHashMap<>();
    /** The [databases] and [users] entries' own max_db_client_connections and max_user_client_connections. */
    private final Map<String, Integer> maxClientsByDatabase = new LinkedHashMap<>();
    private final Map<String, Integer> maxClientsByUser = new LinkedHashMap<>();
    /** The auth_user, auth_query and auth_dbname of [databases] entries that set their own. */
    private final Map<String, Map<ProxySetting, String>> authByDatabase = new LinkedHashMap<>();
    /** The fleet and fleet_max_servers of [databases] entries that set them, as written. */
    private final Map<String, Map<ProxySetting, String>> fleetByDatabase = new LinkedHashMap<>();
    private final ProxySettings.Builder settings = ProxySettings.builder();
    /** The [peers] entries by peer_id. */
    private final Map<Integer, PeerEntry> peers = new LinkedHashMap<>();
    private final PoolOverrides.Builder overrides = PoolOverrides.builder();
    /** The [users] entries' own client timeouts. */
    private final Map<String, Map<ProxySetting, Duration>> userTimeouts = new LinkedHashMap<>();
    private UserSecrets users = UserSecrets.of(Map.of());
    private SslContext clientTlsContext;
    /** Null: from the settings ({@link JanitorPeriod}). */
    private Duration janitorPeriod;
    private Duration drainTimeout = Duration.ofSeconds(10);
    private PgMuxProxy.ConfigSource reloadFrom;
    private Path configDirectory = Path.of("");
    private MetricsTrackerFactory metricsTrackerFactory;
    /** The MeterRegistry behind {@link #metricsTrackerFactory}, when it was given as one. */
    private Object meterRegistry;
    private boolean registerMbeans;

    ProxyBuilder() {
        // in code, no Unix socket unless asked for: an application's proxy has no business in /tmp
        settings.set(ProxySetting.UNIX_SOCKET_DIR, "");
    }

    /**
     * PgBouncer's listen_addr and listen_port; port 0 picks a free one. {@code hosts} may list several
     * addresses, IPv4 or IPv6, separated by commas ({@code "127.0.0.1,::1"}); {@code *} is every address, and
     * empty listens on the Unix socket only.
     */
    public ProxyBuilder listen(String hosts, int port) {
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
    public ProxyBuilder unixSocketDir(Path directory) {
        settings.set(ProxySetting.UNIX_SOCKET_DIR, directory == null ? "" : directory.toString());
        return this;
    }

    /** A database clients connect to by {@code name}, as a {@code postgresql://} URL. */
    public ProxyBuilder database(String name, String url) {
        return database(name, ServerTargets.fromUrl(url));
    }

    public ProxyBuilder database(String name, ServerTarget target) {
        databases.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(target, "target"));
        return this;
    }

    /**
     * A peer of PgBouncer's peering: cancel requests whose key carries {@code entry}'s id are forwarded to its host
     * and port (with peer_id set, as this proxy's own id).
     */
    ProxyBuilder peer(PeerEntry entry) {
        peers.put(entry.id(), entry);
        return this;
    }

    /** A setting's value as set so far, or its default. */
    <T> T setting(ProxySetting setting) {
        return settings.get(setting);
    }

    public ProxyBuilder poolMode(PoolMode mode) {
        settings.pool().poolMode(mode);
        return this;
    }

    public ProxyBuilder defaultPoolSize(int size) {
        settings.pool().defaultPoolSize(size);
        return this;
    }

    public ProxyBuilder maxClientConn(int max) {
        settings.pool().maxClientConn(max);
        return this;
    }

    public ProxyBuilder queryWaitTimeout(Duration timeout) {
        settings.pool().queryWaitTimeout(timeout);
        return this;
    }

    /**
     * Any {@code [pgbouncer]} setting pgmux takes, by its PgBouncer name (pool settings also by pgmux's), e.g.
     * {@code set("server_idle_timeout", "60")}; file names are relative to the working directory.
     */
    public ProxyBuilder set(String name, String value) {
        return set(name, value, Path.of(""));
    }

    /**
     * As {@link #set(String, String)}, with file names relative to {@code base}; auth_file is read now.
     *
     * @throws IllegalArgumentException naming the setting, for an unknown name or a value that cannot be used
     */
    public ProxyBuilder set(String name, String value, Path base) {
        settings.set(name, value, base);
        configDirectory = base;
        ProxySetting setting = ProxySetting.global(name);
        if (setting == ProxySetting.AUTH_FILE) {
            readAuthFile(settings.get(ProxySetting.AUTH_FILE));
        }
        if (setting == ProxySetting.SERVER_PASSWORD_FILE || setting == ProxySetting.SERVER_PASSWORD_COMMAND) {
            // the second of the two is refused at its line
            ServerPasswordSource.of(settings.get(ProxySetting.SERVER_PASSWORD_FILE),
                    settings.get(ProxySetting.SERVER_PASSWORD_COMMAND), Duration.ZERO);
        }
        return this;
    }

    /**
     * A pool setting of every pool of {@code database} that differs from the global one, by the global
     * setting's name (PgBouncer's {@code pool_size=5} in a {@code [databases]} entry is
     * {@code databaseSetting("app", "default_pool_size", "5")}); also the database's own auth_user,
     * auth_query and auth_dbname.
     */
    public ProxyBuilder databaseSetting(String database, String name, String value) {
        ProxySetting named = ProxySetting.named(name);
        if (named == ProxySetting.AUTH_USER || named == ProxySetting.AUTH_QUERY
                || named == ProxySetting.AUTH_DBNAME) {
            authByDatabase.computeIfAbsent(Objects.requireNonNull(database, "database"),
                    d -> new EnumMap<>(ProxySetting.class)).put(named, Objects.requireNonNull(value, "value"));
            return this;
        }
        if (named == ProxySetting.FLEET || named == ProxySetting.FLEET_MAX_SERVERS) {
            fleetByDatabase.computeIfAbsent(Objects.requireNonNull(database, "database"),
                    d -> new EnumMap<>(ProxySetting.class)).put(named, Objects.requireNonNull(value, "value"));
            return this;
        }
        if (named == ProxySetting.MAX_DB_CLIENT_CONNECTIONS) {
            maxClientsByDatabase.put(Objects.requireNonNull(database, "database"),
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
    public ProxyBuilder pinSessionState(PinSessionState mode) {
        settings.put(ProxySetting.PIN_SESSION_STATE, Objects.requireNonNull(mode, "mode"));
        return this;
    }

    /**
     * A {@code [users]} entry of {@code user}, with settings or without: PgBouncer knows the user then, and SHOW
     * USERS lists it.
     */
    public ProxyBuilder user(String user) {
        overrides.user(user);
        return this;
    }

    /**
     * A pool setting of every pool of {@code user}, by the global setting's name (PgBouncer's
     * {@code bob = pool_mode=session} in {@code [users]} is {@code userSetting("bob", "pool_mode", "session")});
     * it wins over the same setting of the pool's database.
     */
    public ProxyBuilder userSetting(String user, String name, String value) {
        ProxySetting own = ProxySetting.named(name);
        if (own == ProxySetting.MAX_USER_CLIENT_CONNECTIONS) {
            maxClientsByUser.put(Objects.requireNonNull(user, "user"), entryCount(own, "user " + user, value));
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

    public ProxyBuilder authType(AuthType type) {
        settings.put(ProxySetting.AUTH_TYPE, Objects.requireNonNull(type, "type"));
        return this;
    }

    /** PgBouncer's auth_file (userlist.txt format), read now. */
    public ProxyBuilder authFile(Path file) {
        settings.put(ProxySetting.AUTH_FILE, file);
        return readAuthFile(file);
    }

    private ProxyBuilder readAuthFile(Path file) {
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
    public ProxyBuilder users(Map<String, String> secretsByUser) {
        this.users = UserSecrets.of(secretsByUser);
        return this;
    }

    public ProxyBuilder users(UserSecrets secrets) {
        this.users = Objects.requireNonNull(secrets, "secrets");
        return this;
    }

    /**
     * TLS for clients that ask for it, from a context made by the caller instead of the client_tls_* files;
     * client_tls_sslmode still decides whether it is required (left at disable, it becomes prefer). Without
     * either, SSLRequest is answered 'N'.
     */
    public ProxyBuilder clientTls(SslContext context) {
        this.clientTlsContext = context;
        return this;
    }

    /**
     * PgBouncer's client_tls_sslmode (default disable); the certificate and the other client_tls_* settings by
     * {@link #set(String, String)}, e.g. {@code set("client_tls_cert_file", "server.crt")}.
     */
    public ProxyBuilder clientTlsSslMode(TlsMode mode) {
        settings.put(ProxySetting.CLIENT_TLS_SSLMODE, Objects.requireNonNull(mode, "mode"));
        return this;
    }

    /**
     * PgBouncer's server_tls_sslmode (default prefer): TLS towards the servers of databases whose URL or
     * connect string names no sslmode of its own. verify-ca and verify-full check the certificate against
     * {@link #serverTlsCaFile(Path)}, or the JDK's trusted CAs without one.
     */
    public ProxyBuilder serverTlsSslMode(TlsMode mode) {
        settings.put(ProxySetting.SERVER_TLS_SSLMODE, Objects.requireNonNull(mode, "mode"));
        return this;
    }

    /** PgBouncer's server_tls_ca_file: PEM certificates that verify-ca and verify-full trust. */
    public ProxyBuilder serverTlsCaFile(Path file) {
        settings.put(ProxySetting.SERVER_TLS_CA_FILE, file);
        return this;
    }

    /**
     * PgBouncer's server_tls_cert_file and server_tls_key_file: a PEM certificate (chain) and its unencrypted
     * PEM key (PKCS#8, PKCS#1 or SEC1), presented to servers that ask for a client certificate; null for none.
     */
    public ProxyBuilder serverTlsClientCertificate(Path certFile, Path keyFile) {
        settings.put(ProxySetting.SERVER_TLS_CERT_FILE, certFile);
        settings.put(ProxySetting.SERVER_TLS_KEY_FILE, keyFile);
        return this;
    }

    /** PgBouncer's server_tls_protocols, e.g. {@code secure} (TLS 1.2 and 1.3, the default) or {@code tlsv1.3}. */
    public ProxyBuilder serverTlsProtocols(String protocols) {
        settings.set(ProxySetting.SERVER_TLS_PROTOCOLS, protocols);
        return this;
    }

    /** PgBouncer's client_login_timeout (default 60 s); zero disables it. */
    public ProxyBuilder clientLoginTimeout(Duration timeout) {
        settings.put(ProxySetting.CLIENT_LOGIN_TIMEOUT, Objects.requireNonNull(timeout, "timeout"));
        return this;
    }

    /** PgBouncer's client_idle_timeout: clients idle outside a transaction this long are disconnected; zero (the default) disables it. */
    public ProxyBuilder clientIdleTimeout(Duration timeout) {
        settings.put(ProxySetting.CLIENT_IDLE_TIMEOUT, Objects.requireNonNull(timeout, "timeout"));
        return this;
    }

    /**
     * PgBouncer's idle_transaction_timeout: a client idle inside a transaction this long is disconnected and
     * its server connection closed (the transaction rolls back); zero (the default) disables it.
     */
    public ProxyBuilder idleTransactionTimeout(Duration timeout) {
        settings.put(ProxySetting.IDLE_TRANSACTION_TIMEOUT, Objects.requireNonNull(timeout, "timeout"));
        return this;
    }

    /**
     * PgBouncer's query_timeout: a client whose request the server has not answered in full within it (waiting
     * for a server included) is disconnected with FATAL 08P01 {@code query timeout} and its server connection
     * closed; zero (the default) disables it. A user may set its own with {@code userSetting}.
     */
    public ProxyBuilder queryTimeout(Duration timeout) {
        settings.put(ProxySetting.QUERY_TIMEOUT, Objects.requireNonNull(timeout, "timeout"));
        return this;
    }

    /**
     * PgBouncer's transaction_timeout: a client whose transaction has been open this long is disconnected with
     * FATAL 08P01 {@code transaction timeout} and its server connection closed (the transaction rolls back);
     * zero (the default) disables it.
     */
    public ProxyBuilder transactionTimeout(Duration timeout) {
        settings.put(ProxySetting.TRANSACTION_TIMEOUT, Objects.requireNonNull(timeout, "timeout"));
        return this;
    }

    /**
     * How often waiters, idle connections and the clients' timeouts are checked; by default five times in the
     * shortest timeout set, between 333 ms and 1 s, and again after each RELOAD and SET.
     */
    public ProxyBuilder janitorPeriod(Duration period) {
        this.janitorPeriod = Objects.requireNonNull(period, "period");
        return this;
    }

    /**
     * The period whose per-second rates and mean times SHOW STATS_AVERAGES, SHOW STATS's avg_* columns and the
     * log_stats line report (PgBouncer's stats_period; default 60 s).
     *
     * @throws IllegalArgumentException below 1 second
     */
    public ProxyBuilder statsPeriod(Duration period) {
        settings.put(ProxySetting.STATS_PERIOD, Objects.requireNonNull(period, "period"));
        return this;
    }

    /** How long {@link PgMuxProxy#close()} lets transactions finish (default 10 s). */
    public ProxyBuilder drainTimeout(Duration timeout) {
        this.drainTimeout = Objects.requireNonNull(timeout, "timeout");
        return this;
    }

    /**
     * PgBouncer's max_prepared_statements (default 200): named prepared statements each server keeps for
     * clients in transaction and statement mode; 0 passes named statements through unchanged.
     */
    public ProxyBuilder maxPreparedStatements(int max) {
        settings.put(ProxySetting.MAX_PREPARED_STATEMENTS, max);
        return this;
    }

    /**
     * PgBouncer's admin_users: users who may run every admin console command (database {@code pgbouncer} or
     * {@code pgmux}), as a comma-separated list; default none.
     */
    public ProxyBuilder adminUsers(String commaSeparated) {
        settings.set(ProxySetting.ADMIN_USERS, Objects.requireNonNull(commaSeparated, "users"));
        return this;
    }

    /** PgBouncer's stats_users: users who may run the admin console's SHOW commands; default none. */
    public ProxyBuilder statsUsers(String commaSeparated) {
        settings.set(ProxySetting.STATS_USERS, Objects.requireNonNull(commaSeparated, "users"));
        return this;
    }

    /**
     * Makes the admin console's RELOAD apply {@code source}'s settings: a fresh builder, typically loaded again
     * from the file this one came from ({@link ProxyConfigLoader#load} sets it).
     */
    public ProxyBuilder reloadFrom(Callable<ProxyBuilder> source) {
        this.reloadFrom = conffile -> source.call();
        return this;
    }

    /**
     * Makes the admin console's RELOAD read the file its conffile setting names at that time, as PgBouncer
     * does: the file the proxy was loaded from, unless the file or SET conffile named another.
     */
    public ProxyBuilder reloadFromFile(PgMuxProxy.ConfigSource source) {
        this.reloadFrom = source;
        return this;
    }

    /** Receives every pool's events and gauges (HikariCP's metrics SPI); default none. */
    public ProxyBuilder metricsTrackerFactory(MetricsTrackerFactory factory) {
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
    public ProxyBuilder metricRegistry(Object meterRegistry) {
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
    public ProxyBuilder registerMbeans(boolean register) {
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
    public ProxyBuilder maxPacketSize(int bytes) {
        settings.put(ProxySetting.MAX_PACKET_SIZE, bytes);
        return this;
    }

    /** Event loop threads; 0 (the default) means one per two cores, at least one. */
    public ProxyBuilder threads(int threads) {
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
        return new ProxyStart(this, configuration()).start();
    }

    /**
     * What it was given, checked together: the configuration a proxy starts with, or that RELOAD applies.
     *
     * @throws io.pgmux.core.config.ConfigException for pool settings that do not fit together
     * @throws IllegalArgumentException naming the database whose fleet is incomplete or has no budget
     */
    ProxyConfiguration configuration() {
        ProxySettings s = settings.build();
        PoolOverrides poolOverrides = overrides.build();
        poolOverrides.validate(s.pool());
        Map<String, ClientTimeouts.Limits> userLimits = new LinkedHashMap<>();
        userTimeouts.forEach((user, own) -> userLimits.put(user,
                ClientSettings.limits(setting -> own.getOrDefault(setting, Duration.ZERO))));
        Map<String, FleetSetting> fleets = new LinkedHashMap<>();
        fleetByDatabase.forEach((database, own) -> fleets.put(database, FleetSetting.of("database " + database,
                own.get(ProxySetting.FLEET), own.get(ProxySetting.FLEET_MAX_SERVERS))));
        fleets.values().removeIf(Objects::isNull);
        return new ProxyConfiguration(s, poolOverrides, Map.copyOf(databases), Map.copyOf(pinSessionStateByDatabase),
                Map.copyOf(maxClientsByDatabase), Map.copyOf(maxClientsByUser), Map.copyOf(authByDatabase),
                Map.copyOf(fleets), Map.copyOf(userLimits), users, Map.copyOf(peers), clientTlsContext, configDirectory);
    }

    /** The period the builder fixed, or null. */
    Duration janitorPeriod() {
        return janitorPeriod;
    }

    Duration drainTimeout() {
        return drainTimeout;
    }

    PgMuxProxy.ConfigSource reloadFrom() {
        return reloadFrom;
    }

    MetricsTrackerFactory metricsTrackerFactory() {
        return metricsTrackerFactory;
    }

    /** The MeterRegistry behind {@link #metricsTrackerFactory()}, or null when it was not given as one. */
    Object meterRegistry() {
        return meterRegistry;
    }

    boolean registerMbeans() {
        return registerMbeans;
    }
}
