package io.pgmux.proxy;

import io.pgmux.core.pool.PoolKey;
import io.pgmux.proxy.auth.PlaintextSecret;
import io.pgmux.proxy.auth.QueriedUsers;
import io.pgmux.proxy.auth.Secret;
import io.pgmux.proxy.auth.UserSecrets;
import io.pgmux.proxy.config.ProxySetting;
import io.pgmux.proxy.config.ProxySettings;
import io.pgmux.proxy.log.ConnectionLog;
import io.pgmux.proxy.prepared.PreparedStatementLimit;
import io.pgmux.proxy.server.AutoDatabases;
import io.pgmux.proxy.server.NettyServerConnector;
import io.pgmux.proxy.server.ReplicaHosts;
import io.pgmux.proxy.server.ReloadableConnector;
import io.pgmux.proxy.server.ServerPassword;
import io.pgmux.proxy.server.ServerPasswordSource;
import io.pgmux.proxy.server.ServerTarget;
import io.pgmux.proxy.server.ServerTls;
import io.pgmux.proxy.transport.Transport;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** Every pool's connector, made from the targets and secrets of now; RELOAD and SET rebuild them. */
final class ServerConnectors {
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
    /** The global server_password_file or server_password_command, or null. */
    private volatile ServerPasswordSource globalPassword;
    private volatile Duration commandCacheTime = Duration.ZERO;
    /** Each source's reader, shared by the pools that use it, so that a command's output serves them all. */
    private volatile Map<ServerPasswordSource, ServerPassword> passwords = new ConcurrentHashMap<>();

    /** Connects nowhere until {@link #update} gives it the targets, secrets and TLS. */
    ServerConnectors(Transport transport, PreparedStatementLimit preparedStatements, QueriedUsers queried,
            AutoDatabases autoDatabases, ConnectionLog connectionLog) {
        this.autoDatabases = autoDatabases;
        this.queried = queried;
        this.connectionLog = connectionLog;
        this.transport = transport;
        this.preparedStatements = preparedStatements;
        this.targets = Map.of();
        this.secrets = UserSecrets.of(Map.of());
    }

    Map<String, ServerTarget> targets() {
        return targets;
    }

    /** The secrets auth_query found, for users not in the auth file. */
    QueriedUsers queried() {
        return queried;
    }

    /**
     * The listed database {@code name}, one host of a read-routing entry ({@code app@host:port}, the pool its reads
     * borrow from), or the auto-database the * entry makes of it.
     */
    private ServerTarget target(String name) {
        ServerTarget listed = targets.get(name);
        if (listed != null) {
            return listed;
        }
        ServerTarget replica = ReplicaHosts.target(targets, name);
        return replica != null ? replica : autoDatabases.target(name);
    }

    /** The connector of the pool of {@code key}, made by {@link #create}. */
    ReloadableConnector of(PoolKey key) {
        return byPool.get(key);
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
        this.globalPassword = globalPassword(settings);
        this.commandCacheTime = settings.get(ProxySetting.SERVER_PASSWORD_COMMAND_CACHE_TIME);
        // read afresh from now on: a changed file name or command is never served from an old cache
        this.passwords = new ConcurrentHashMap<>();
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
        ServerPasswordSource source = target.passwordSource() != null ? target.passwordSource()
                : target.password() == null ? globalPassword : null;
        if (source != null) {
            ServerPassword password = password(source);
            return connector(key, target, loginUser, () -> password.read(key.database(), loginUser));
        }
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
        return connector(key, target, loginUser, () -> CompletableFuture.completedFuture(secret.get()));
    }

    private NettyServerConnector connector(PoolKey key, ServerTarget target, String loginUser,
            Supplier<CompletableFuture<Secret>> secret) {
        return new NettyServerConnector(transport, target, loginUser, secret, serverTls, connectTimeoutMillis,
                preparedStatements::tracking).logTo(connectionLog, key.database());
    }

    /** The reader of {@code source}, an entry's without a cache time of its own taking the global one. */
    private ServerPassword password(ServerPasswordSource source) {
        ServerPasswordSource complete = source.cacheTime() != null ? source
                : new ServerPasswordSource(source.file(), source.command(), commandCacheTime);
        return passwords.computeIfAbsent(complete, s -> new ServerPassword(s,
                Duration.ofMillis(connectTimeoutMillis), transport.blockingWork()));
    }

    /**
     * The server password source of {@code [pgbouncer]}: every server login whose entry gives no password of its
     * own reads it, instead of the auth file's secret.
     *
     * @throws IllegalArgumentException for both server_password_file and server_password_command
     */
    static ServerPasswordSource globalPassword(ProxySettings settings) {
        return ServerPasswordSource.of(settings.get(ProxySetting.SERVER_PASSWORD_FILE),
                settings.get(ProxySetting.SERVER_PASSWORD_COMMAND),
                settings.get(ProxySetting.SERVER_PASSWORD_COMMAND_CACHE_TIME));
    }

    private static int connectTimeoutMillis(ProxySettings settings) {
        return (int) Math.min(Integer.MAX_VALUE,
                Math.max(1, TimeUnit.NANOSECONDS.toMillis(settings.pool().serverConnectTimeoutNanos())));
    }
}
