package io.pgmux.proxy;

import io.pgmux.core.pool.PoolRegistry;
import io.pgmux.proxy.admin.AdminConsole;
import io.pgmux.proxy.auth.UserSecrets;
import io.pgmux.proxy.client.ClientAuthentication;
import io.pgmux.proxy.client.ClientTls;
import io.pgmux.proxy.client.JanitorPeriod;
import io.pgmux.proxy.client.ProxyContext;
import io.pgmux.proxy.config.ProxySetting;
import io.pgmux.proxy.config.ProxySettings;
import io.pgmux.proxy.fleet.ProxyFleets;
import io.pgmux.proxy.log.ConnectionLog;
import io.pgmux.proxy.log.StatsLog;
import io.pgmux.proxy.server.ServerConnection;
import io.pgmux.proxy.server.ServerTls;
import io.netty.channel.Channel;
import io.pgmux.proxy.transport.Listeners;
import io.pgmux.proxy.transport.ReadPauses;
import io.pgmux.proxy.transport.TcpOptions;
import io.pgmux.proxy.transport.Transport;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts a {@link ProxyConfiguration} into effect, by one path for start, RELOAD and the admin console's SET: each
 * setting where PgBouncer reads it (the pools', the clients' through one {@link io.pgmux.proxy.client.ClientSettings}
 * swap, the client timeouts for every client from the janitor's next pass, the rest for the clients, server
 * connections and sockets that come afterwards), then what {@link SettingsChange} says changed. The configuration
 * in effect is one volatile reference, replaced whole.
 */
final class SettingsApply {
    /** Under the proxy's name, where RELOAD's and SET's lines have always been. */
    private static final Logger log = LoggerFactory.getLogger(PgMuxProxy.class);
    private static final String CLIENT_TLS_PREFIX = "client_tls";
    private static final String SERVER_TLS_PREFIX = "server_tls";
    private final PoolRegistry<ServerConnection> registry;
    private final ProxyContext context;
    private final ServerConnectors connectors;
    private final ProxyFleets fleets;
    private final StatsLog statsLog;
    private final Transport transport;
    private final AdminConsole console;
    /** Where RELOAD loads the configuration from; null when built in code. */
    private final PgMuxProxy.ConfigSource reloadFrom;
    /** The builder's janitor period, or null: then each settings change sets it ({@link JanitorPeriod}). */
    private final Duration fixedJanitorPeriod;
    private volatile ProxyConfiguration current;
    /** Null until bound: at start, the sockets are bound with the settings applied. */
    private volatile Listeners listeners;
    /** SIGHUP's reloads under way: the listeners accept again when the last ends. */
    private final AtomicInteger reloadsHoldingAccepts = new AtomicInteger();
    /** Told of the settings each RELOAD and SET leaves in effect: the standalone process's logging. */
    private volatile Consumer<ProxySettings> settingsApplied = applied -> { };

    /** What start, RELOAD and SET read from files, each null when it did not change. */
    record FromFiles(ClientTls clientTls, ServerTls serverTls, ClientAuthentication authentication) {
        static final FromFiles NONE = new FromFiles(null, null, null);

        /**
         * All of them, read now.
         *
         * @throws IllegalArgumentException naming the setting whose file cannot be used
         */
        static FromFiles of(ProxyConfiguration configuration, Transport transport) {
            return new FromFiles(configuration.clientTls(), configuration.serverTls(transport.blockingWork()),
                    configuration.authentication());
        }
    }

    SettingsApply(ProxyConfiguration first, PoolRegistry<ServerConnection> registry, ProxyContext context,
            ServerConnectors connectors, ProxyFleets fleets, StatsLog statsLog, Transport transport,
            AdminConsole console,
            PgMuxProxy.ConfigSource reloadFrom, Duration fixedJanitorPeriod) {
        this.current = first;
        this.fixedJanitorPeriod = fixedJanitorPeriod;
        this.registry = registry;
        this.context = context;
        this.connectors = connectors;
        this.fleets = fleets;
        this.statsLog = statsLog;
        this.transport = transport;
        this.console = console;
        this.reloadFrom = reloadFrom;
    }

    /** The settings in effect. */
    ProxySettings settings() {
        return current.settings();
    }

    /** At start, before the listeners take clients: every setting, with what {@code files} holds. */
    synchronized void start(FromFiles files) {
        ProxyConfiguration first = current;
        apply(first, first, first.settings(), files, null);
    }

    /**
     * Whether nothing of the proxy's own can be due within a janitor period: no client's timeout, no WAIT_CLOSE. The
     * janitor then sleeps its quiet period, idle clients connected or not.
     */
    private boolean nothingDueSoon() {
        return context.clientTimeouts().nothingDue() && console.nothingWaitingToClose();
    }

    /** The listeners bound at start, retuned by what RELOAD and SET change from now on. */
    void listening(Listeners bound) {
        this.listeners = bound;
    }

    /**
     * RELOAD: loads the configuration again from where it came from and applies what a running proxy can change,
     * as PgBouncer does. Either way the listener of {@link #onSettingsApplied} hears of the settings in effect
     * afterwards.
     *
     * @throws IllegalStateException when the proxy was not configured from a file
     * @throws Exception what loading the configuration threw; the running settings are kept then
     */
    void reload() throws Exception {
        if (reloadFrom == null) {
            throw new IllegalStateException("the proxy was not started from a configuration file");
        }
        try {
            ProxyConfiguration fresh = reloadFrom.load(settings().get(ProxySetting.CONFFILE)).configuration();
            // Certificate, hba and ident files are read first, outside the lock; one that cannot be used fails
            // RELOAD as a whole.
            FromFiles files = FromFiles.of(current.reloaded(fresh), transport);
            synchronized (this) {
                apply(current, current.reloaded(fresh), fresh.settings(), files, "RELOAD");
            }
        } finally {
            settingsApplied.accept(settings());
        }
    }

    /**
     * {@link #reload} on the executor for blocking work, the listeners accepting nobody from the return of this call
     * until it is over: a client that connects after the call (after SIGHUP) is served by the reloaded settings, as in
     * PgBouncer, whose one event loop reloads before it accepts again. Reloads that overlap hold the listeners until
     * the last ends. The stage fails with what the reload threw.
     */
    CompletableFuture<Void> reloadInBackground() {
        Listeners bound = listeners;
        List<Channel> held = bound == null ? List.of() : bound.channels();
        reloadsHoldingAccepts.incrementAndGet();
        held.forEach(listener -> holdAccepts(listener, true));
        CompletableFuture<Void> done = new CompletableFuture<>();
        Runnable reload = () -> {
            try {
                reload();
                done.complete(null);
            } catch (Exception | Error e) {
                done.completeExceptionally(e);
            } finally {
                acceptAgain(held);
            }
        };
        try {
            transport.blockingWork().execute(reload);
        } catch (RejectedExecutionException e) {
            // shut down meanwhile
            acceptAgain(held);
            done.completeExceptionally(e);
        }
        return done;
    }

    /** A reload ended: the last one lets the listeners accept, decided on their loops, after any later pause. */
    private void acceptAgain(List<Channel> held) {
        if (reloadsHoldingAccepts.decrementAndGet() == 0) {
            held.forEach(listener -> holdAccepts(listener, false));
        }
    }

    /**
     * Pauses {@code listener}'s accepts for a reload, in effect when this returns (Netty takes the connections ready
     * on a loop before the tasks queued to it, so a pause left queued would let one more in), or resumes them on its
     * loop unless another reload has begun meanwhile.
     */
    private void holdAccepts(Channel listener, boolean hold) {
        Runnable change = () -> {
            if (hold) {
                ReadPauses.pause(listener, ReadPauses.RELOADING);
            } else if (reloadsHoldingAccepts.get() == 0) {
                ReadPauses.resume(listener, ReadPauses.RELOADING);
            }
        };
        try {
            if (listener.eventLoop().inEventLoop()) {
                change.run();
            } else if (hold) {
                listener.eventLoop().submit(change).awaitUninterruptibly(1, TimeUnit.SECONDS);
            } else {
                listener.eventLoop().execute(change);
            }
        } catch (RejectedExecutionException e) {
            // the loop shut down: the listener accepts nobody any more anyway
        }
    }

    /**
     * The admin console's SET: one global setting changed at once, as RELOAD would change it. A client_tls_* or
     * server_tls_* value the TLS cannot be set up with is taken all the same while the TLS in use stays, as in
     * PgBouncer: a key and its certificate change one SET at a time.
     *
     * @return PgBouncer's NOTICE when the TLS in use stays, else empty
     * @throws IllegalArgumentException for a value the setting cannot take, or a file that cannot be read
     */
    Optional<String> set(ProxySetting setting, String value) throws IOException {
        Optional<String> notice = applySet(setting, value);
        settingsApplied.accept(settings());
        return notice;
    }

    private synchronized Optional<String> applySet(ProxySetting setting, String value) throws IOException {
        ProxyConfiguration next = current.with(setting, value);
        String name = setting.configName();
        boolean tls = name.startsWith(CLIENT_TLS_PREFIX) || name.startsWith(SERVER_TLS_PREFIX);
        FromFiles files;
        Optional<String> notice = Optional.empty();
        try {
            files = new FromFiles(name.startsWith(CLIENT_TLS_PREFIX) ? next.clientTls() : null,
                    name.startsWith(SERVER_TLS_PREFIX) ? next.serverTls(transport.blockingWork()) : null,
                    name.startsWith("auth_") || setting == ProxySetting.SCRAM_ITERATIONS
                            ? next.authentication() : null);
        } catch (IllegalArgumentException e) {
            if (!tls) {
                throw e;
            }
            log.warn("admin SET {}: {}; the TLS in use stays", name, e.getMessage());
            files = FromFiles.NONE;
            notice = Optional.of("TLS settings could not be applied, still using old configuration");
        }
        apply(current, next, next.settings(), files, "SET");
        return notice;
    }

    /**
     * The auth file changed on disk (auth_file_check_period): its users from now on, without a RELOAD; clients
     * logged in stay. A file that cannot be read or is malformed leaves the users in effect.
     */
    void authFileChanged() {
        Path file = settings().get(ProxySetting.AUTH_FILE);
        UserSecrets fresh;
        try {
            // read outside the lock, as RELOAD reads its files
            fresh = current.authFileReadAgain();
        } catch (IOException | IllegalArgumentException e) {
            log.warn("auth_file {} changed but cannot be used: {}; the users read before stay", file, e.getMessage());
            return;
        }
        synchronized (this) {
            apply(current, current.withUsers(fresh), current.settings(), FromFiles.NONE, "auth_file");
        }
        log.info("auth_file {} changed: its users read again", file);
    }

    /**
     * Calls {@code listener} with the settings each RELOAD (one that failed too) and SET leaves in effect, from then
     * on, on the thread that ran them and outside the lock (the listener may open files).
     */
    void onSettingsApplied(Consumer<ProxySettings> listener) {
        this.settingsApplied = Objects.requireNonNull(listener, "listener");
    }

    /**
     * The one path: {@code next} in effect from now on, where each setting is read. What {@code files} holds as
     * null is kept as it is.
     *
     * @param requested the settings as loaded or asked for, the restart-only ones included
     * @param cause what applies it, for the log lines of what changed; null at start, when nothing changes
     */
    private void apply(ProxyConfiguration before, ProxyConfiguration next, ProxySettings requested, FromFiles files,
            String cause) {
        SettingsChange change = SettingsChange.between(before, next, requested);
        if (!change.restartOnly().isEmpty()) {
            log.warn("{}: changes to {} take effect only after a restart", cause,
                    String.join(", ", change.restartOnly()));
        }
        ProxySettings s = next.settings();
        registry.reconfigure(s.pool(), next.overrides());
        fleets.configure(next.fleetByDatabase(), registry.pools());
        current = next;
        context.settings(next.clientSettings());
        context.users(next.users());
        context.connectionLog().settings(s);
        statsLog.enabled(s.get(ProxySetting.LOG_STATS));
        registry.statsPeriod(s.get(ProxySetting.STATS_PERIOD));
        if (fixedJanitorPeriod == null) {
            registry.janitorPeriod(JanitorPeriod.of(s, next.overrides(), next.userLimits().values()));
            registry.janitorQuietPeriod(JanitorPeriod.quiet(s, next.overrides()), this::nothingDueSoon);
        }
        if (files.clientTls() != null) {
            context.clientTls(files.clientTls());
        }
        if (files.authentication() != null) {
            files.authentication().applyTo(context, connectors.queried());
        }
        context.cancelSender().waitTimeout(s.get(ProxySetting.CANCEL_WAIT_TIMEOUT));
        context.peerPools().configure(s.get(ProxySetting.PEER_ID), next.peers(), s.pool().defaultPoolSize());
        context.maxPreparedStatements(s.get(ProxySetting.MAX_PREPARED_STATEMENTS));
        TcpOptions tcp = TcpOptions.of(s);
        transport.tcp(tcp);
        Listeners bound = listeners;
        if (bound != null) {
            bound.tune(tcp, transport.kind());
        }
        context.autoDatabases().idleTimeout(s.get(ProxySetting.AUTODB_IDLE_TIMEOUT));
        context.clientLimits().configure(s.get(ProxySetting.MAX_DB_CLIENT_CONNECTIONS), next.maxClientsByDatabase(),
                s.get(ProxySetting.MAX_USER_CLIENT_CONNECTIONS), next.maxClientsByUser());
        context.idlePools().timeout(s.get(ProxySetting.POOL_IDLE_TIMEOUT));
        console.reloaded(s);
        Set<String> autoMoved = context.autoDatabases().reloaded(next.resolved());
        // the connectors first, so that a client finding the database finds its server too
        connectors.update(next.listed(), next.users(), s, files.serverTls());
        if (files.serverTls() != null && change.serverTlsChanged()) {
            log.info("server TLS settings changed: every server connection closes once released");
            registry.pools().forEach(p -> p.softEvictConnections(ConnectionLog.CONFIGURATION_CHANGED));
        }
        context.databases(next.listed());
        console.databases(next.listed());
        autoMoved.forEach(name -> softEvict(name, cause + ": auto-database {} changed: its server connections close"
                + " once released"));
        change.removed().forEach(name -> {
            log.info("{}: database {} removed", cause, name);
            console.databaseRemoved(name);
            registry.removeDatabase(name);
        });
        change.changed().forEach(name -> softEvict(name, cause + ": database {} changed: its server connections"
                + " close once released"));
        change.added().forEach(name -> log.info("{}: new database {}", cause, name));
        // as PgBouncer's janitor: the pool of a forced user keeps min_pool_size servers open before any client comes
        next.listed().forEach((name, target) -> {
            if (target.user() != null && !target.user().isEmpty()
                    && next.overrides().forDatabase(s.pool(), name).minPoolSize() > 0) {
                registry.pool(name, target.user());
            }
        });
    }

    /** The servers of {@code database}'s pools close once released, logged with {@code message}. */
    private void softEvict(String database, String message) {
        log.info(message, database);
        registry.pools().stream().filter(p -> p.key().database().equals(database))
                .forEach(p -> p.softEvictConnections(ConnectionLog.CONFIGURATION_CHANGED));
    }
}
