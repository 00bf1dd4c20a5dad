package io.pgmux.proxy.admin;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.pool.Pool;
import io.pgmux.core.pool.PoolRegistry;
import io.pgmux.proxy.client.AdminRoute;
import io.pgmux.proxy.client.ClientConnection;
import io.pgmux.proxy.client.ClientInfo;
import io.pgmux.proxy.client.ProxyContext;
import io.pgmux.proxy.config.ProxySetting;
import io.pgmux.proxy.config.ProxySettings;
import io.pgmux.proxy.protocol.CommandComplete;
import io.pgmux.proxy.protocol.EncodableMessage;
import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.protocol.NoticeResponse;
import io.pgmux.proxy.protocol.PoolerError;
import io.pgmux.proxy.protocol.SqlState;
import io.pgmux.proxy.server.ServerConnection;
import io.pgmux.proxy.server.ServerTarget;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin console of one proxy: who may log in to the virtual database {@code pgbouncer} (alias
 * {@code pgmux}), and the commands. {@code admin_users} may run every command, {@code stats_users} the SHOW
 * commands; anyone logged in may send the harmless SETs drivers send at startup. Errors are PgBouncer's: ERROR
 * 08P01 followed by ReadyForQuery.
 */
public final class AdminConsole implements AdminRoute {
    private static final Logger log = LoggerFactory.getLogger(AdminConsole.class);

    static final String DATABASE = "pgbouncer";
    static final String ALIAS = "pgmux";
    /** The PgBouncer release whose console this one answers like. */
    public static final String PGBOUNCER_VERSION = "1.25.2";
    /** Reported as server_version, in PgBouncer's shape ({@code <version>/bouncer}), so drivers parse it. */
    static final String SERVER_VERSION = PGBOUNCER_VERSION + "/pgmux";
    /** Parameters drivers SET at startup; accepted and ignored, as PgBouncer's console does. */
    private static final Set<String> HARMLESS_SETTINGS = Set.of("client_encoding", "default_transaction_isolation",
            "standard_conforming_strings", "datestyle", "timezone", "application_name", "extra_float_digits");
    private static final Set<String> SHOW_UNSUPPORTED = Set.of("FDS", "SOCKETS", "ACTIVE_SOCKETS", "MEM",
            "DNS_HOSTS", "DNS_ZONES", "PEERS", "PEER_POOLS", "STATE", "PREPARED_STATEMENTS");
    private static final Set<String> UNSUPPORTED = Set.of("SUSPEND", "WAIT_CLOSE", "KILL_CLIENT");

    /** RELOAD: reads the configuration file again and applies it; throws what went wrong. */
    @FunctionalInterface
    public interface Reloader {
        void reload() throws Exception;
    }

    private final ProxyContext context;
    private volatile Map<String, ServerTarget> databases;
    private volatile Set<String> adminUsers;
    private volatile Set<String> statsUsers;
    private volatile ProxySettings settings;
    private final IntSupplier port;
    private final Runnable shutdown;
    private final Reloader reloader;
    private final ShowCommands show = new ShowCommands(this);
    private final Set<AdminSession> sessions = ConcurrentHashMap.newKeySet();
    private final Set<String> paused = ConcurrentHashMap.newKeySet();
    private final Set<String> disabled = ConcurrentHashMap.newKeySet();

    /**
     * @param settings who may log in (admin_users, stats_users) and what SHOW CONFIG shows
     * @param port     the proxy's listening port, for SHOW DATABASES' row of the console itself
     * @param shutdown closes the proxy (SHUTDOWN); run on a thread of its own
     * @param reloader RELOAD, run on a thread of its own; null when the proxy was not started from a file
     */
    public AdminConsole(ProxyContext context, Map<String, ServerTarget> databases, ProxySettings settings,
            IntSupplier port, Runnable shutdown, Reloader reloader) {
        this.context = context;
        this.databases = Map.copyOf(databases);
        this.port = port;
        this.shutdown = shutdown;
        this.reloader = reloader;
        reloaded(settings);
    }

    /** PAUSE of every database, as from the console (the standalone proxy's SIGUSR1); completes once paused. */
    public CompletionStage<Void> pause() {
        return pause(null).thenApply(done -> null);
    }

    /** RESUME of every database, as from the console (the standalone proxy's SIGUSR2). */
    public void resume() {
        resume(null);
    }

    /** After a RELOAD that added databases: every database, as SHOW DATABASES and PAUSE see them. */
    public void databases(Map<String, ServerTarget> databases) {
        this.databases = Map.copyOf(databases);
    }

    /** After RELOAD: who may log in from now on, and what SHOW CONFIG shows. */
    public void reloaded(ProxySettings settings) {
        this.adminUsers = Set.copyOf(settings.<List<String>>get(ProxySetting.ADMIN_USERS));
        this.statsUsers = Set.copyOf(settings.<List<String>>get(ProxySetting.STATS_USERS));
        this.settings = settings;
    }

    // ---------------------------------------------------------------- routing

    @Override
    public boolean isConsole(String database) {
        return DATABASE.equals(database) || ALIAS.equals(database);
    }

    @Override
    public boolean isDisabled(String database) {
        return disabled.contains(database);
    }

    boolean isPaused(String database) {
        return paused.contains(database);
    }

    @Override
    public ErrorResponse admit(String user) {
        return adminUsers.contains(user) || statsUsers.contains(user) ? null : PoolerError.notAllowed();
    }

    @Override
    public void open(Channel channel, ChannelHandler login, String user, Map<String, String> startupParameters) {
        AdminSession session = new AdminSession(this, channel, user, adminUsers.contains(user), startupParameters);
        sessions.add(session);
        channel.pipeline().replace(login, "admin-session", session);
        log.info("admin console login: user {} from {}", user, channel.remoteAddress());
        session.welcome();
    }

    void sessionClosed(AdminSession session) {
        sessions.remove(session);
    }

    // ---------------------------------------------------------------- what the views read

    PoolRegistry<ServerConnection> registry() {
        return context.registry();
    }

    Collection<ClientConnection> clients() {
        return context.clients();
    }

    Collection<AdminSession> sessions() {
        return sessions;
    }

    Map<String, ServerTarget> databases() {
        return databases;
    }

    PoolConfig config() {
        return registry().config();
    }

    Set<String> adminUsers() {
        return adminUsers;
    }

    Set<String> statsUsers() {
        return statsUsers;
    }

    ProxySettings settings() {
        return settings;
    }

    int port() {
        return port.getAsInt();
    }

    String versionText() {
        String own = AdminConsole.class.getPackage().getImplementationVersion();
        return "PgBouncer " + PGBOUNCER_VERSION + " compatible (pgmux" + (own == null ? "" : " " + own) + ")";
    }

    // ---------------------------------------------------------------- commands

    CompletionStage<List<EncodableMessage>> execute(AdminSession session, AdminCommand command) {
        switch (command.verb()) {
            case "SHOW" -> {
                Table table = showTable(command);
                if (table == null) {
                    return done(command.argument().equals("HELP") ? help() : unsupportedOrInvalid(command));
                }
                return done(table.messages());
            }
            case "SET" -> {
                return done(set(session, command));
            }
            default -> {
                // process control below
            }
        }
        if (!isControl(command.verb())) {
            return done(invalid(command));
        }
        if (!session.isAdmin()) {
            return done(List.of(error("admin access needed")));
        }
        if (UNSUPPORTED.contains(command.verb())) {
            return done(unsupported(command.verb()));
        }
        if (command.verb().equals("SHUTDOWN")) {
            return done(shutdown(session, command));
        }
        if (command.verb().equals("RELOAD")) {
            return command.name().isEmpty() ? reload() : done(invalid(command));
        }
        String database = command.name().isEmpty() ? null : command.name();
        if (database != null && !databases.containsKey(database)) {
            return done(List.of(error("no such database: " + database)));
        }
        return switch (command.verb()) {
            case "PAUSE" -> pause(database);
            case "RESUME" -> done(resume(database));
            case "RECONNECT" -> done(reconnect(database));
            case "KILL" -> done(kill(database));
            case "DISABLE", "ENABLE" -> done(enable(command.verb(), database));
            default -> done(invalid(command));
        };
    }

    private static boolean isControl(String verb) {
        return switch (verb) {
            case "PAUSE", "RESUME", "RECONNECT", "KILL", "DISABLE", "ENABLE", "SHUTDOWN", "RELOAD" -> true;
            default -> UNSUPPORTED.contains(verb);
        };
    }

    private Table showTable(AdminCommand command) {
        if (!command.extra().isEmpty()) {
            return null;
        }
        return switch (command.argument()) {
            case "POOLS" -> show.pools();
            case "STATS" -> show.stats();
            case "STATS_TOTALS" -> show.statsTotals();
            case "STATS_AVERAGES" -> show.statsAverages();
            case "TOTALS" -> show.totals();
            case "CLIENTS" -> show.clients();
            case "SERVERS" -> show.servers();
            case "DATABASES" -> show.databases();
            case "USERS" -> show.users();
            case "LISTS" -> show.lists();
            case "CONFIG" -> show.config();
            case "VERSION" -> show.version();
            default -> null;
        };
    }

    private List<EncodableMessage> unsupportedOrInvalid(AdminCommand command) {
        return SHOW_UNSUPPORTED.contains(command.argument()) && command.extra().isEmpty()
                ? unsupported("SHOW " + command.argument()) : invalid(command);
    }

    private static List<EncodableMessage> help() {
        String usage = String.join("\n",
                "\tSHOW HELP|CONFIG|DATABASES|POOLS|CLIENTS|SERVERS|USERS|VERSION",
                "\tSHOW LISTS",
                "\tSHOW STATS|STATS_TOTALS|STATS_AVERAGES|TOTALS",
                "\tPAUSE [<db>]",
                "\tRESUME [<db>]",
                "\tDISABLE <db>",
                "\tENABLE <db>",
                "\tRECONNECT [<db>]",
                "\tKILL [<db>]",
                "\tSHUTDOWN");
        return List.of(NoticeResponse.notice("00000", "Console usage").withDetail(usage),
                new CommandComplete("SHOW"));
    }

    /** Only the settings drivers send at startup are accepted (and have no effect); others fail as in PgBouncer. */
    private List<EncodableMessage> set(AdminSession session, AdminCommand command) {
        if (command.text().indexOf(';') >= 0) {
            return invalid(command);
        }
        String rest = command.text().substring(3).strip();
        int end = 0;
        while (end < rest.length() && rest.charAt(end) != '=' && !Character.isWhitespace(rest.charAt(end))) {
            end++;
        }
        String key = rest.substring(0, end).toLowerCase(Locale.ROOT);
        if (HARMLESS_SETTINGS.contains(key)) {
            return List.of(new CommandComplete("SET"));
        }
        if (!session.isAdmin()) {
            return List.of(error("admin access needed"));
        }
        return List.of(error("SET failed").withDetail("pgmux does not change settings at run time: \"" + key
                + "\" can only be set in the configuration"));
    }

    private CompletionStage<List<EncodableMessage>> pause(String database) {
        List<Pool<ServerConnection>> pools = pools(database);
        paused.addAll(database == null ? databases.keySet() : Set.of(database));
        List<CompletableFuture<Void>> drained = new ArrayList<>();
        for (Pool<ServerConnection> pool : pools) {
            // PgBouncer's PAUSE disconnects from the servers once none is in use
            drained.add(pool.pause().toCompletableFuture().thenRun(pool::softEvictConnections));
        }
        return CompletableFuture.allOf(drained.toArray(new CompletableFuture<?>[0]))
                .thenApply(v -> List.of(new CommandComplete("PAUSE")));
    }

    private List<EncodableMessage> resume(String database) {
        pools(database).forEach(Pool::resume);
        if (database == null) {
            paused.clear();
        } else {
            paused.remove(database);
        }
        return List.of(new CommandComplete("RESUME"));
    }

    private List<EncodableMessage> reconnect(String database) {
        pools(database).forEach(Pool::softEvictConnections);
        return List.of(new CommandComplete("RECONNECT"));
    }

    /** Drops the database's clients and servers now; new clients wait for RESUME, as in PgBouncer. */
    private List<EncodableMessage> kill(String database) {
        List<Pool<ServerConnection>> pools = pools(database);
        paused.addAll(database == null ? databases.keySet() : Set.of(database));
        pools.forEach(Pool::pause);
        for (ClientConnection client : clients()) {
            ClientInfo info = client.info();
            if (info.database() != null && (database == null || database.equals(info.database()))) {
                info.channel().close();
            }
        }
        // idle servers close now, those the killed clients held as their leases end
        pools.forEach(Pool::softEvictConnections);
        return List.of(new CommandComplete("KILL"));
    }

    private List<EncodableMessage> enable(String verb, String database) {
        if (database == null) {
            return List.of(error("invalid command '" + verb + "', use SHOW HELP;"));
        }
        if (verb.equals("DISABLE")) {
            disabled.add(database);
        } else {
            disabled.remove(database);
        }
        return List.of(new CommandComplete(verb));
    }

    /** Reads the file on a thread of its own: file access has no place on an event loop. */
    private CompletionStage<List<EncodableMessage>> reload() {
        if (reloader == null) {
            return done(List.of(error("RELOAD is not supported: the proxy was not started from a configuration file")));
        }
        CompletableFuture<List<EncodableMessage>> result = new CompletableFuture<>();
        Thread worker = new Thread(() -> {
            try {
                reloader.reload();
                log.info("RELOAD from the admin console: configuration applied");
                result.complete(List.of(new CommandComplete("RELOAD")));
            } catch (Exception | Error e) {
                log.error("RELOAD failed: {}", e.getMessage(), e);
                result.complete(List.of(ErrorResponse.error("F0000", "RELOAD failed, see logs for additional details")
                        .withDetail(String.valueOf(e.getMessage()))));
            }
        }, "pgmux-admin-reload");
        worker.setDaemon(true);
        worker.start();
        return result;
    }

    private List<EncodableMessage> shutdown(AdminSession session, AdminCommand command) {
        if (!command.name().isEmpty()) {
            return unsupported("SHUTDOWN " + command.argument());
        }
        log.info("SHUTDOWN from the admin console");
        // queued behind this read, so the reply is written before closing begins; closing blocks, so not here
        session.channel().eventLoop().execute(() -> {
            Thread stopper = new Thread(shutdown, "pgmux-admin-shutdown");
            stopper.setDaemon(false);
            stopper.start();
        });
        return List.of(new CommandComplete("SHUTDOWN"));
    }

    private List<Pool<ServerConnection>> pools(String database) {
        List<Pool<ServerConnection>> pools = new ArrayList<>();
        for (Pool<ServerConnection> pool : registry().pools()) {
            if (database == null || database.equals(pool.key().database())) {
                pools.add(pool);
            }
        }
        return pools;
    }

    private static List<EncodableMessage> invalid(AdminCommand command) {
        return List.of(error("invalid command '" + command.query() + "', use SHOW HELP;"));
    }

    private static List<EncodableMessage> unsupported(String what) {
        return List.of(error(what + " is not supported by pgmux"));
    }

    private static ErrorResponse error(String message) {
        return ErrorResponse.error(SqlState.PROTOCOL_VIOLATION, message);
    }

    private static CompletionStage<List<EncodableMessage>> done(List<EncodableMessage> messages) {
        return CompletableFuture.completedFuture(messages);
    }
}
