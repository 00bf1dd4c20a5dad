package io.pgmux.proxy.admin;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.pool.Pool;
import io.pgmux.core.pool.PoolKey;
import io.pgmux.core.pool.PoolRegistry;
import io.pgmux.core.stats.TrafficStats;
import io.pgmux.proxy.auth.UserSecrets;
import io.pgmux.proxy.client.AdminRoute;
import io.pgmux.proxy.client.ClientConnection;
import io.pgmux.proxy.client.ClientInfo;
import io.pgmux.proxy.client.ClientLimits;
import io.pgmux.proxy.client.ClientTimeouts;
import io.pgmux.proxy.client.PinCounts;
import io.pgmux.proxy.client.ProxyContext;
import io.pgmux.proxy.config.ProxySetting;
import io.pgmux.proxy.config.ProxySettings;
import io.pgmux.proxy.config.Scope;
import io.pgmux.proxy.log.ConnectionLog;
import io.pgmux.proxy.protocol.CommandComplete;
import io.pgmux.proxy.protocol.EncodableMessage;
import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.protocol.NoticeResponse;
import io.pgmux.proxy.protocol.PoolerError;
import io.pgmux.proxy.protocol.SqlState;
import io.pgmux.proxy.server.PeerPools;
import io.pgmux.proxy.server.ServerConnection;
import io.pgmux.proxy.server.ServerTarget;
import io.pgmux.proxy.transport.ConnectionSocket;
import io.pgmux.proxy.transport.DnsHosts;
import io.pgmux.proxy.transport.ReadGate;
import io.pgmux.proxy.transport.ReadPauses;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
    /** server_version as PgBouncer's console reports it: drivers parse it, tools tell the console by it. */
    static final String SERVER_VERSION = PGBOUNCER_VERSION + "/bouncer";
    /**
     * Session parameters drivers SHOW and SET on the console: SHOW answers PgBouncer's fixed value, SET is accepted
     * and ignored with PgBouncer's NOTICE {@code SET ignored}.
     */
    private static final Map<String, String> FAKE_PARAMETERS = Map.of("client_encoding", "UTF-8",
            "default_transaction_isolation", "read committed", "standard_conforming_strings", "on",
            "datestyle", "ISO", "timezone", "GMT");
    /** Also SET and ignored, beyond PgBouncer's list: pgjdbc sends them after login (docs/pgbouncer-differences.md). */
    private static final Set<String> IGNORED_BY_PGMUX = Set.of("application_name", "extra_float_digits");
    /**
     * PgBouncer's SET: {@code SET key = word} or {@code SET key = 'string'} ('' for a quote), the key a word or
     * a double-quoted name, case-insensitive; anything else is an invalid command.
     */
    private static final Pattern SET = Pattern.compile(
            "set\\s+(\"(?:[^\"]|\"\")+\"|[0-9a-z_]+)\\s*(?:=|to)\\s*(?:'((?:[^']|'')*)'|(\"(?:[^\"]|\"\")+\"|[0-9a-z_]+))",
            Pattern.CASE_INSENSITIVE | Pattern.DOTALL);

    /** RELOAD: reads the configuration file again and applies it; throws what went wrong. */
    @FunctionalInterface
    public interface Reloader {
        void reload() throws Exception;
    }

    /**
     * SET of a changeable setting: applies it at once and returns the NOTICE to answer with, if any; throws why the
     * value cannot be taken.
     */
    @FunctionalInterface
    public interface Setter {
        Optional<String> set(ProxySetting setting, String value) throws Exception;
    }

    /** How SHUTDOWN ends the proxy. */
    public enum Shutdown {
        /** SHUTDOWN: close now. */
        IMMEDIATE,
        /** Stop accepting, fail waiting clients, let transactions finish. */
        WAIT_FOR_SERVERS,
        /** Stop accepting, close once every client has left. */
        WAIT_FOR_CLIENTS
    }

    private final ProxyContext context;
    private volatile Map<String, ServerTarget> databases;
    private volatile Set<String> adminUsers;
    private volatile Set<String> statsUsers;
    private volatile ProxySettings settings;
    private final IntSupplier port;
    private final Consumer<Shutdown> shutdown;
    private final Reloader reloader;
    private final Setter setter;
    private final DnsHosts dnsHosts;
    private final ShowCommands show = new ShowCommands(this);
    private final Set<AdminSession> sessions = ConcurrentHashMap.newKeySet();
    /**
     * SHOW STATS' row of database {@code pgbouncer}, counted as PgBouncer counts its admin pool: a login per console
     * login, a transaction and a query per session that sent anything (PgBouncer never ends an admin client's first
     * query, so its later commands add nothing), no bytes and no times.
     */
    private final TrafficStats traffic = new TrafficStats();
    /** Databases paused (or killed) one by one; PAUSE without a name is {@link #pausedAll}. */
    private final Set<String> paused = ConcurrentHashMap.newKeySet();
    private final Set<String> disabled = ConcurrentHashMap.newKeySet();
    private volatile boolean pausedAll;
    private volatile boolean suspended;
    /** The console session that ran SUSPEND: as in PgBouncer, the suspension ends when it leaves. */
    private volatile AdminSession suspendedBy;
    private volatile List<Channel> listening = List.of();
    private volatile ReadGate readGate = new ReadGate();
    /** WAIT_CLOSE commands waiting for their servers' close_needed to clear, checked on each janitor pass. */
    private final Map<CompletableFuture<List<EncodableMessage>>, String> waitingToClose = new ConcurrentHashMap<>();

    /**
     * @param settings who may log in (admin_users, stats_users) and what SHOW CONFIG shows
     * @param port     the proxy's listening port, for SHOW DATABASES' row of the console itself
     * @param shutdown closes the proxy (SHUTDOWN and its WAIT_FOR_ forms); run on the executor for blocking work
     * @param reloader RELOAD, run on the executor for blocking work; null when the proxy was not started from a file
     * @param setter   SET of a changeable setting, run on the executor for blocking work (it may read files)
     */
    public AdminConsole(ProxyContext context, Map<String, ServerTarget> databases, ProxySettings settings,
            IntSupplier port, Consumer<Shutdown> shutdown, Reloader reloader, Setter setter, DnsHosts dnsHosts) {
        this.context = context;
        this.dnsHosts = dnsHosts;
        this.databases = Map.copyOf(databases);
        this.port = port;
        this.shutdown = shutdown;
        this.reloader = reloader;
        this.setter = setter;
        reloaded(settings);
        context.registry().addJanitorChore(this::checkWaitingToClose);
        context.registry().addTraffic(traffic);
    }

    /** PAUSE of every database, as from the console (the standalone proxy's SIGUSR1); completes once paused. */
    public CompletionStage<Void> pause() {
        return pause(null).thenApply(done -> null);
    }

    /** RESUME of every database, paused together or one by one (the standalone proxy's SIGUSR2). */
    public void resume() {
        paused.clear();
        pausedAll = false;
        endSuspension();
        registry().pools().forEach(Pool::resume);
    }

    /** The sockets read again and the listeners accept again; what arrived meanwhile goes on in order. */
    private void endSuspension() {
        suspended = false;
        suspendedBy = null;
        readGate.open();
        listening.forEach(listener -> ReadPauses.resume(listener, ReadPauses.SUSPENDED));
    }

    /** The listening sockets, once bound, for SHOW FDS and SUSPEND; the gate SUSPEND closes on every socket. */
    public void listening(List<Channel> channels, ReadGate gate) {
        this.listening = List.copyOf(channels);
        this.readGate = gate;
    }

    List<Channel> listening() {
        return listening;
    }

    /** After RELOAD: every database, as SHOW DATABASES and PAUSE see them. */
    public void databases(Map<String, ServerTarget> databases) {
        this.databases = Map.copyOf(databases);
    }

    /** RELOAD removed the database: its clients are disconnected with PgBouncer's {@code database removed}. */
    public void databaseRemoved(String database) {
        paused.remove(database);
        disabled.remove(database);
        ErrorResponse removed = PoolerError.databaseRemoved();
        for (ClientConnection client : clients()) {
            if (database.equals(client.info().database())) {
                client.disconnect(removed);
            }
        }
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

    /**
     * A client logged in to the pool: a pool made after its database was paused, killed or suspended waits for
     * RESUME too, as in PgBouncer.
     */
    @Override
    public void clientJoins(Pool<ServerConnection> pool) {
        if (pausedAll || suspended || paused.contains(pool.key().database())) {
            pool.pause();
        }
    }

    boolean isPausedAll() {
        return pausedAll;
    }

    boolean isSuspended() {
        return suspended;
    }

    @Override
    public ErrorResponse admit(String user) {
        if (adminUsers.contains(user)) {
            // as in PgBouncer: the client limits never keep out an admin user, who is the one to raise them
            return null;
        }
        if (!statsUsers.contains(user)) {
            return PoolerError.notAllowed();
        }
        int own = (int) sessions.stream().filter(s -> s.user().equals(user)).count();
        return clientLimits().consoleOverLimit(DATABASE, sessions.size(), user, own);
    }

    @Override
    public void open(Channel channel, long id, String user,
            Map<String, String> startupParameters) {
        open(channel, id, user, adminUsers.contains(user), startupParameters);
    }

    @Override
    public void openForOwner(Channel channel, long id, String user,
            Map<String, String> startupParameters) {
        open(channel, id, user, true, startupParameters);
    }

    private void open(Channel channel, long id, String user, boolean admin,
            Map<String, String> startupParameters) {
        AdminSession session = new AdminSession(this, channel, id, user, admin, startupParameters);
        sessions.add(session);
        // the console is read during SUSPEND too, as PgBouncer's: RESUME comes through it
        readGate.unwatch(channel);
        // behind the codec, which the client's connection left: it now passes everything on through the pipeline
        channel.pipeline().addLast("admin-session", session);
        log.info("admin console login: user {} from {}", user, channel.remoteAddress());
        traffic.recordClientLogin();
        session.welcome();
    }

    /** A session's first message after its login: PgBouncer's admin pool counts its only transaction and query. */
    void sessionStarted() {
        traffic.recordTransaction(0);
        traffic.recordQuery(0);
    }

    TrafficStats traffic() {
        return traffic;
    }

    void sessionClosed(AdminSession session) {
        sessions.remove(session);
        if (session == suspendedBy) {
            log.info("the admin console session that ran SUSPEND left: resuming");
            resume(null);
        }
    }

    // ---------------------------------------------------------------- what the views read

    /** The read routing of every pool of a read_routing = replicas entry that has had a client. */
    java.util.Collection<io.pgmux.proxy.replicas.ReplicaRoutes> replicaRoutes() {
        return context.replicaRoutes();
    }

    /** How the pool's clients are pinned to their servers by session state (pin_session_state). */
    PinCounts pinCounts(PoolKey pool) {
        return context.pinCounts(pool);
    }

    NoticeResponse loginNotice() {
        return context.loginNotice();
    }

    PeerPools peerPools() {
        return context.peerPools();
    }

    ClientLimits clientLimits() {
        return context.clientLimits();
    }

    UserSecrets userSecrets() {
        return context.users();
    }

    ClientTimeouts clientTimeouts() {
        return context.clientTimeouts();
    }

    PoolRegistry<ServerConnection> registry() {
        return context.registry();
    }

    Collection<ClientConnection> clients() {
        return context.clients();
    }

    Collection<AdminSession> sessions() {
        return sessions;
    }

    /** The databases listed and the auto-databases made from the {@code *} entry. */
    Map<String, ServerTarget> databases() {
        return context.autoDatabases().withAuto(databases);
    }

    /** The [databases] entry whose settings {@code database} has: the {@code *} entry's for an auto-database. */
    String entryName(String database) {
        return context.autoDatabases().entryName(database);
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

    /** SHOW VERSION's text, also the first line of {@code --version}, as PgBouncer prints the same line in both. */
    public static String versionText() {
        String own = AdminConsole.class.getPackage().getImplementationVersion();
        return "PgBouncer " + PGBOUNCER_VERSION + " compatible (pgmux" + (own == null ? "" : " " + own) + ")";
    }

    // ---------------------------------------------------------------- commands

    CompletionStage<List<EncodableMessage>> execute(AdminSession session, AdminCommand command) {
        switch (command.verb()) {
            case "SHOW", "SELECT" -> {
                // PgBouncer takes SELECT <view> for SHOW <view>, and SHOWs a few session parameters
                String fake = command.extra().isEmpty() ? FAKE_PARAMETERS.get(command.name().toLowerCase(Locale.ROOT))
                        : null;
                if (fake != null) {
                    Table parameter = new Table().text(command.name().toLowerCase(Locale.ROOT));
                    parameter.row(fake);
                    return done(parameter.messages());
                }
                Table table = showTable(command);
                if (table == null) {
                    return done(command.argument().equals("HELP") ? help() : invalid(command));
                }
                return done(table.messages());
            }
            case "SET" -> {
                return set(session, command);
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
        switch (command.verb()) {
            case "SHUTDOWN" -> {
                return shutdown(session, command);
            }
            case "RELOAD" -> {
                return command.name().isEmpty() ? reload() : done(invalid(command));
            }
            case "SUSPEND" -> {
                return command.name().isEmpty() ? suspend(session) : done(invalid(command));
            }
            case "KILL_CLIENT" -> {
                return done(command.extra().isEmpty() ? killClient(command.name()) : invalid(command));
            }
            default -> {
                // commands on one database or all below
            }
        }
        if (!command.extra().isEmpty()) {
            return done(invalid(command));
        }
        String database = command.name().isEmpty() ? null : command.name();
        if (database == null && (command.verb().equals("DISABLE") || command.verb().equals("ENABLE"))) {
            return done(List.of(error("a database is required")));
        }
        if (database != null && isConsole(database)) {
            return done(List.of(error(consoleRefusal(command.verb(), database))));
        }
        if (database != null && !databases().containsKey(database)) {
            return done(List.of(error("no such database: " + database)));
        }
        return switch (command.verb()) {
            case "PAUSE" -> pause(database);
            case "RESUME" -> done(resume(database));
            case "RECONNECT" -> done(reconnect(database));
            case "KILL" -> done(kill(database));
            case "DISABLE", "ENABLE" -> done(enable(command.verb(), database));
            case "WAIT_CLOSE" -> waitClose(database);
            default -> done(invalid(command));
        };
    }

    /** PgBouncer's answer to a command on the console's own database, which no command pauses, kills or waits on. */
    private static String consoleRefusal(String verb, String database) {
        return switch (verb) {
            case "RESUME" -> "database " + database + " is not paused";
            case "WAIT_CLOSE" -> "cannot wait in admin db: " + database;
            default -> "cannot " + verb.toLowerCase(Locale.ROOT) + " admin db: " + database;
        };
    }

    private static boolean isControl(String verb) {
        return switch (verb) {
            case "PAUSE", "RESUME", "RECONNECT", "KILL", "DISABLE", "ENABLE", "SHUTDOWN", "RELOAD", "SUSPEND",
                    "WAIT_CLOSE", "KILL_CLIENT" -> true;
            default -> false;
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
            case "STATE" -> show.state();
            case "FDS" -> show.fds();
            case "SOCKETS" -> show.sockets(false);
            case "ACTIVE_SOCKETS" -> show.sockets(true);
            case "MEM" -> show.mem();
            case "PINS" -> show.pins();
            case "REPLICAS" -> show.replicas();
            case "FLEET" -> ShowFleet.of(registry());
            case "PEERS" -> ShowCommands.peers(context.peerPools());
            case "PEER_POOLS" -> ShowCommands.peerPools(context.peerPools());
            case "DNS_HOSTS" -> ShowCommands.dnsHosts(dnsHosts);
            case "DNS_ZONES" -> ShowCommands.dnsZones();
            default -> null;
        };
    }

    private static List<EncodableMessage> help() {
        String usage = String.join("\n",
                "\tSHOW HELP|CONFIG|DATABASES|POOLS|CLIENTS|SERVERS|USERS|VERSION",
                "\tSHOW PEERS|PEER_POOLS",
                "\tSHOW FDS|SOCKETS|ACTIVE_SOCKETS|LISTS|MEM|STATE",
                "\tSHOW DNS_HOSTS|DNS_ZONES",
                "\tSHOW STATS|STATS_TOTALS|STATS_AVERAGES|TOTALS",
                "\tSHOW REPLICAS",
                "\tSET key = arg",
                "\tRELOAD",
                "\tPAUSE [<db>]",
                "\tRESUME [<db>]",
                "\tDISABLE <db>",
                "\tENABLE <db>",
                "\tRECONNECT [<db>]",
                "\tKILL [<db>]",
                "\tKILL_CLIENT <client_id>",
                "\tSUSPEND",
                "\tSHUTDOWN",
                "\tSHUTDOWN WAIT_FOR_SERVERS|WAIT_FOR_CLIENTS",
                "\tWAIT_CLOSE [<db>]");
        return List.of(NoticeResponse.notice("00000", "Console usage").withDetail(usage),
                new CommandComplete("SHOW"));
    }

    /**
     * PgBouncer's SET: a changeable setting changes at once, with the tag {@code SET key=value}. The session
     * settings drivers send at startup are accepted and have no effect. An unknown key, a bad value, or a key that
     * takes a restart fail with PgBouncer's {@code SET failed}, the DETAIL saying why (PgBouncer answers SET of a
     * read-only key as if it had worked).
     */
    private CompletionStage<List<EncodableMessage>> set(AdminSession session, AdminCommand command) {
        Matcher m = SET.matcher(command.text());
        if (!m.matches()) {
            return done(invalid(command));
        }
        String key = unquoteName(m.group(1));
        String value = m.group(2) != null ? m.group(2).replace("''", "'") : unquoteName(m.group(3));
        String lower = key.toLowerCase(Locale.ROOT);
        if (FAKE_PARAMETERS.containsKey(lower) || IGNORED_BY_PGMUX.contains(lower)) {
            return done(List.of(NoticeResponse.notice("00000", "SET ignored"), new CommandComplete("SET")));
        }
        if (!session.isAdmin()) {
            return done(List.of(error("admin access needed")));
        }
        // names are matched exactly, as PgBouncer's SET does (its ini reader ignores case)
        ProxySetting found = ProxySetting.named(key);
        ProxySetting setting = found != null && found.configName().equals(key) ? found : null;
        String refusal = null;
        if (setting == null || !setting.takenIn(Scope.GLOBAL)
                && !setting.pgbouncerTakesIn(Scope.GLOBAL)) {
            refusal = ProxySetting.unknownGlobal(key);
        } else if (!setting.takenIn(Scope.GLOBAL)) {
            refusal = key + " is not supported by pgmux yet";
        } else if (setting.change() != ProxySetting.Change.RELOAD) {
            refusal = key + " cannot be changed at run time: it takes a restart (SHOW CONFIG's changeable column)";
        }
        if (refusal != null) {
            log.info("admin SET {} refused: {}", key, refusal);
            return done(List.of(setFailed(refusal)));
        }
        return offLoop(() -> {
            Optional<String> notice;
            try {
                notice = setter.set(setting, value);
            } catch (Exception e) {
                log.info("admin SET {} refused: {}", key, e.getMessage());
                return List.of(setFailed(e.getMessage()));
            }
            log.info("admin SET {} = {}", key, value);
            CommandComplete done = new CommandComplete("SET " + key + "=" + value);
            return notice.<List<EncodableMessage>>map(text -> List.of(NoticeResponse.notice("00000", text), done))
                    .orElseGet(() -> List.of(done));
        });
    }

    private static String unquoteName(String word) {
        return word.startsWith("\"") ? word.substring(1, word.length() - 1).replace("\"\"", "\"") : word;
    }

    private static ErrorResponse setFailed(String why) {
        return error("SET failed").withDetail(why);
    }

    /**
     * PAUSE of every database, or of one. As PgBouncer's, refused during a PAUSE or SUSPEND of every database;
     * PAUSE of a database already paused or killed is answered again, once its servers are released.
     */
    private CompletionStage<List<EncodableMessage>> pause(String database) {
        if (pausedAll || suspended) {
            return done(List.of(error("already suspended/paused")));
        }
        if (database == null) {
            pausedAll = true;
        } else {
            paused.add(database);
        }
        List<CompletableFuture<Void>> drained = new ArrayList<>();
        for (Pool<ServerConnection> pool : pools(database)) {
            // PgBouncer's PAUSE disconnects from the servers once none is in use
            drained.add(pool.pause().toCompletableFuture().thenRun(pool::softEvictConnections));
        }
        return CompletableFuture.allOf(drained.toArray(new CompletableFuture<?>[0]))
                .thenApply(v -> List.of(new CommandComplete("PAUSE")));
    }

    /**
     * RESUME after PAUSE or SUSPEND of every database, or after PAUSE or KILL of one; a database paused on its own
     * stays so.
     */
    private List<EncodableMessage> resume(String database) {
        if (database == null) {
            if (context.isShuttingDown()) {
                return List.of(error("pooler is shutting down"));
            }
            if (!pausedAll && !suspended) {
                return List.of(error("pooler is not paused/suspended"));
            }
            pausedAll = false;
            endSuspension();
        } else if (!paused.remove(database)) {
            return List.of(error("database " + database + " is not paused"));
        }
        for (Pool<ServerConnection> pool : pools(database)) {
            if (!pausedAll && !suspended && !paused.contains(pool.key().database())) {
                pool.resume();
            }
        }
        return List.of(new CommandComplete("RESUME"));
    }

    /**
     * SUSPEND, as PgBouncer's: the listeners stop accepting, every client and server socket stops reading (what it
     * had read is held until RESUME) and no server is handed out, until RESUME or until the session that ran it
     * leaves (in PgBouncer that session is the new process of an online restart); answered once every client's
     * pending writes are flushed. A client whose writes are not flushed within suspend_timeout is closed.
     */
    private CompletionStage<List<EncodableMessage>> suspend(AdminSession session) {
        if (pausedAll || suspended) {
            return done(List.of(error("already suspended/paused")));
        }
        if (!paused.isEmpty()) {
            // SUSPEND flushes every client, which a paused database's waiting clients would not let it do
            return done(List.of(error("cannot suspend with paused databases")));
        }
        suspended = true;
        suspendedBy = session;
        listening.forEach(listener -> ReadPauses.pause(listener, ReadPauses.SUSPENDED));
        readGate.close();
        pools(null).forEach(Pool::pause);
        long timeoutNanos = settings.<Duration>get(ProxySetting.SUSPEND_TIMEOUT).toNanos();
        List<CompletableFuture<Void>> flushed = new ArrayList<>();
        for (ClientConnection client : clients()) {
            ConnectionSocket socket = client.info().socket();
            CompletableFuture<Void> written = new CompletableFuture<>();
            socket.whenFlushed(() -> written.complete(null));
            if (timeoutNanos > 0) {
                socket.eventLoop().schedule(() -> {
                    if (!written.isDone()) {
                        log.info("SUSPEND: client {} not flushed within suspend_timeout: closing it",
                                socket.remoteAddress());
                        socket.close();
                    }
                }, timeoutNanos, TimeUnit.NANOSECONDS);
            }
            flushed.add(written);
        }
        return CompletableFuture.allOf(flushed.toArray(new CompletableFuture<?>[0]))
                .thenApply(v -> List.of(new CommandComplete("SUSPEND")));
    }

    private List<EncodableMessage> reconnect(String database) {
        pools(database).forEach(p -> p.softEvictConnections(ConnectionLog.CONFIGURATION_CHANGED));
        return List.of(new CommandComplete("RECONNECT"));
    }

    /**
     * Drops the database's clients, with PgBouncer's {@code database removed}, and its servers now; new clients wait
     * for RESUME of the database, as in PgBouncer. KILL without a name does so for every database with a pool, each
     * paused on its own (RESUME without a name does not end it); databases without a pool go on serving. Refused
     * during a PAUSE or SUSPEND of every database, as PgBouncer's.
     */
    private List<EncodableMessage> kill(String database) {
        if (pausedAll || suspended) {
            return List.of(error("already suspended/paused"));
        }
        List<Pool<ServerConnection>> pools = pools(database);
        if (database == null) {
            pools.forEach(pool -> paused.add(pool.key().database()));
        } else {
            paused.add(database);
        }
        pools.forEach(Pool::pause);
        ErrorResponse removed = PoolerError.databaseRemoved();
        for (ClientConnection client : clients()) {
            ClientInfo info = client.info();
            if (info.database() != null && (database == null || database.equals(info.database()))) {
                client.disconnect(removed);
            }
        }
        // idle servers close now, those the killed clients held as their leases end
        pools.forEach(Pool::softEvictConnections);
        return List.of(new CommandComplete("KILL"));
    }

    /** KILL_CLIENT: the client of that SHOW CLIENTS id leaves with PgBouncer's {@code admin forced disconnect}. */
    private List<EncodableMessage> killClient(String id) {
        long wanted;
        try {
            wanted = Long.parseLong(id);
        } catch (NumberFormatException e) {
            return List.of(error("invalid client pointer supplied"));
        }
        ErrorResponse forced = PoolerError.fatal("admin forced disconnect");
        for (ClientConnection client : clients()) {
            if (client.info().id() == wanted) {
                log.info("KILL_CLIENT {}: client {} disconnected", id, client.info().socket().remoteAddress());
                client.disconnect(forced);
                return List.of(new CommandComplete("KILL_CLIENT"));
            }
        }
        for (AdminSession other : sessions) {
            if (other.id() == wanted) {
                other.channel().writeAndFlush(forced).addListener(ChannelFutureListener.CLOSE);
                return List.of(new CommandComplete("KILL_CLIENT"));
            }
        }
        return List.of(error("client not found"));
    }

    private List<EncodableMessage> enable(String verb, String database) {
        if (verb.equals("DISABLE")) {
            disabled.add(database);
        } else {
            disabled.remove(database);
        }
        return List.of(new CommandComplete(verb));
    }

    /** WAIT_CLOSE: answered once no server of the database (or of any) is marked close_needed any more. */
    private CompletionStage<List<EncodableMessage>> waitClose(String database) {
        CompletableFuture<List<EncodableMessage>> result = new CompletableFuture<>();
        waitingToClose.put(result, database == null ? "" : database);
        // each janitor pass checks it: one sleeping its quiet period comes back to its period
        context.registry().wakeJanitor();
        checkWaitingToClose();
        return result;
    }

    /** Whether no WAIT_CLOSE waits: the janitor's passes need not come at its period for this console. */
    public boolean nothingWaitingToClose() {
        return waitingToClose.isEmpty();
    }

    /** A janitor chore: answers the WAIT_CLOSE commands whose servers have all closed or cleared close_needed. */
    private void checkWaitingToClose() {
        if (waitingToClose.isEmpty()) {
            return;
        }
        waitingToClose.forEach((result, database) -> {
            boolean closeNeeded = pools(database.isEmpty() ? null : database).stream()
                    .anyMatch(pool -> pool.view().serverSnapshots().stream().anyMatch(s -> s.closeNeeded));
            if (!closeNeeded && waitingToClose.remove(result, database)) {
                result.complete(List.of(new CommandComplete("WAIT_CLOSE")));
            }
        });
    }

    /** Reads the file on the executor for blocking work: file access has no place on an event loop. */
    private CompletionStage<List<EncodableMessage>> reload() {
        if (reloader == null) {
            return done(List.of(error("RELOAD is not supported: the proxy was not started from a configuration file")));
        }
        return offLoop(() -> {
            try {
                reloader.reload();
            } catch (Exception | Error e) {
                log.error("RELOAD failed: {}", e.getMessage(), e);
                return List.of(ErrorResponse.error("F0000", "RELOAD failed, see logs for additional details")
                        .withDetail(String.valueOf(e.getMessage())));
            }
            log.info("RELOAD from the admin console: configuration applied");
            return List.of(new CommandComplete("RELOAD"));
        });
    }

    /** Runs {@code work} on the proxy's executor for blocking work, for what reads files or blocks. */
    private CompletionStage<List<EncodableMessage>> offLoop(Supplier<List<EncodableMessage>> work) {
        return CompletableFuture.supplyAsync(work, context.blockingWork());
    }

    /**
     * SHUTDOWN and its WAIT_FOR_ forms. Plain SHUTDOWN is never answered, as in PgBouncer: the session waits for
     * the close, which ends its connection (psql says the server closed it unexpectedly).
     */
    private CompletionStage<List<EncodableMessage>> shutdown(AdminSession session, AdminCommand command) {
        Shutdown mode;
        if (command.name().isEmpty()) {
            mode = Shutdown.IMMEDIATE;
        } else if (command.extra().isEmpty() && command.argument().equals("WAIT_FOR_SERVERS")) {
            mode = Shutdown.WAIT_FOR_SERVERS;
        } else if (command.extra().isEmpty() && command.argument().equals("WAIT_FOR_CLIENTS")) {
            mode = Shutdown.WAIT_FOR_CLIENTS;
        } else {
            return done(invalid(command));
        }
        log.info("SHUTDOWN{} from the admin console", mode == Shutdown.IMMEDIATE ? "" : " " + mode);
        // before this session's next command, which the closing thread below may not have started by then
        context.shutdownBegins();
        // queued behind this read, so a reply is written before closing begins; closing blocks, so not here
        session.channel().eventLoop().execute(() -> context.blockingWork().execute(() -> shutdown.accept(mode)));
        return mode == Shutdown.IMMEDIATE ? new CompletableFuture<>() : done(List.of(new CommandComplete("SHUTDOWN")));
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

    private static ErrorResponse error(String message) {
        return ErrorResponse.error(SqlState.PROTOCOL_VIOLATION, message);
    }

    private static CompletionStage<List<EncodableMessage>> done(List<EncodableMessage> messages) {
        return CompletableFuture.completedFuture(messages);
    }
}
