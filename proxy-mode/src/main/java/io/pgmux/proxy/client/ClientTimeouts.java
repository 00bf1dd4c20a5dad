package io.pgmux.proxy.client;

import io.netty.channel.EventLoop;
import io.pgmux.core.pool.LentServer;
import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.protocol.PoolerError;
import io.pgmux.proxy.server.ServerConnection;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

/**
 * PgBouncer's client timeouts, checked for every client on each pass of core's janitor, as PgBouncer's janitor.c
 * does: no timer object per client, only the timeout each runs and since when. client_login_timeout,
 * client_idle_timeout and idle_transaction_timeout run while the client is quiet; query_timeout from the start of
 * a request until the server has answered it all, transaction_timeout from the start of a transaction until it
 * ended. A user's own value (a {@code [users]} entry) wins over the global one where it is above 0, as in
 * PgBouncer; the client's user's first, then that of the user its database logs in as (PgBouncer takes the login
 * user's for the server-side timeouts, so an ini written for it keeps its meaning). The janitor's pass touches no
 * client: it hands one task to each event loop with clients, which checks its own clients there ({@link
 * #serverSideExpiry} and {@link #quietExpiry} are the rules, pure functions of a client's state), so a client's
 * state is read and written on its loop only.
 */
public final class ClientTimeouts implements Runnable {

    /** The timeout running for a quiet client, with the error PgBouncer closes it with. */
    enum Timeout {
        LOGIN(PoolerError.clientLoginTimeout()),
        /** Logged in, and the pool's first server, which brings the parameters to welcome it with, is not up yet. */
        WELCOME(PoolerError.clientLoginTimeoutServerDown()),
        IDLE(PoolerError.clientIdleTimeout()),
        IDLE_IN_TRANSACTION(PoolerError.idleTransactionTimeout());

        private final ErrorResponse error;

        Timeout(ErrorResponse error) {
            this.error = error;
        }

        ErrorResponse error() {
            return error;
        }
    }

    /**
     * client_idle_timeout, idle_transaction_timeout, query_timeout and transaction_timeout, each in nanoseconds;
     * 0 is off (for a user: not set).
     */
    public record Limits(long idleNanos, long idleTransactionNanos, long queryNanos, long transactionNanos) {
        public static final Limits NONE = new Limits(0, 0, 0, 0);

        public Limits(Duration idle, Duration idleTransaction, Duration query, Duration transaction) {
            this(idle.toNanos(), idleTransaction.toNanos(), query.toNanos(), transaction.toNanos());
        }

        /** These (a user's own) where above 0, else {@code global}'s. */
        Limits over(Limits global) {
            if (!any()) {
                // most users set none: their clients share the global limits rather than a copy each
                return global;
            }
            return new Limits(idleNanos > 0 ? idleNanos : global.idleNanos,
                    idleTransactionNanos > 0 ? idleTransactionNanos : global.idleTransactionNanos,
                    queryNanos > 0 ? queryNanos : global.queryNanos,
                    transactionNanos > 0 ? transactionNanos : global.transactionNanos);
        }

        boolean any() {
            return idleNanos > 0 || idleTransactionNanos > 0 || queryNanos > 0 || transactionNanos > 0;
        }
    }

    /** The event loops clients have connected on: each gets a pass of its own. */
    private final Set<EventLoop> loops = ConcurrentHashMap.newKeySet();
    /** Clients between connecting and their welcome; those logged in are in {@link #loggedIn}. */
    private final Set<ClientConnection> loggingIn = ConcurrentHashMap.newKeySet();
    private final Iterable<ClientConnection> loggedIn;
    /** Whether any client waits for a server now: only such a client can be due a query_wait_notify notice. */
    private final BooleanSupplier anyWaiting;
    /** Wakes the janitor, which may sleep longer while no client is connected. */
    private final Runnable wakeJanitor;
    private volatile long loginNanos;
    /** Counts the changes of the limits, so that each client takes the new ones on the next pass. */
    private volatile int version;
    private volatile Limits global = Limits.NONE;
    /** The limits {@code [users]} entries set, each user's own (0: not set). */
    private volatile Map<String, Limits> usersOwn = Map.of();
    /** Whether any logged-in client can have a limit: else the pass skips them. */
    private volatile boolean anyLimit;
    /** server_fast_close: a client's close_needed server is closed, and the client with it, once ready. */
    private volatile boolean fastClose;
    /** query_wait_notify in whole seconds; 0 sends no notice. */
    private volatile int waitNotifySeconds = 5;

    /**
     * @param loggedIn the logged-in clients, live
     * @param anyWaiting whether any client waits for a server now
     * @param wakeJanitor wakes the janitor when a client connects
     * @param loginMillis client_login_timeout; 0 means none
     */
    ClientTimeouts(Iterable<ClientConnection> loggedIn, BooleanSupplier anyWaiting, Runnable wakeJanitor,
            long loginMillis) {
        this.loggedIn = loggedIn;
        this.anyWaiting = anyWaiting;
        this.wakeJanitor = wakeJanitor;
        this.loginNanos = Duration.ofMillis(loginMillis).toNanos();
    }

    /**
     * The global limits and the users' own; as in PgBouncer, whose janitor reads the settings of now, they apply
     * to the clients logged in already from the next pass on.
     */
    public void limits(Limits global, Map<String, Limits> usersOwn) {
        boolean any = global.any();
        for (Limits own : usersOwn.values()) {
            any |= own.any();
        }
        this.usersOwn = Map.copyOf(usersOwn);
        this.global = global;
        this.anyLimit = any;
        version++;
    }

    /** client_login_timeout ({@code 0}: none), for the clients logging in now and later. */
    public void loginTimeout(Duration timeout) {
        this.loginNanos = timeout.toNanos();
    }

    /** The users whose [users] entry sets a client timeout. */
    public Set<String> usersWithOwnLimits() {
        return usersOwn.keySet();
    }

    int version() {
        return version;
    }

    /** The limits of a client of {@code user} whose server connections log in as {@code loginUser}. */
    Limits forUser(String user, String loginUser) {
        Map<String, Limits> own = usersOwn;
        return own.getOrDefault(user, Limits.NONE).over(own.getOrDefault(loginUser, Limits.NONE).over(global));
    }

    /** query_wait_notify: a client waiting for a server longer than this many whole seconds is told so; 0 never. */
    void waitNotifySeconds(int seconds) {
        this.waitNotifySeconds = seconds;
    }

    int waitNotifySeconds() {
        return waitNotifySeconds;
    }

    /** server_fast_close, from the next pass on. */
    void fastClose(boolean on) {
        this.fastClose = on;
    }

    boolean fastClose() {
        return fastClose;
    }

    /** The global query_timeout, which PgBouncer also applies to a client still waiting for a server. */
    long waitingQueryNanos() {
        return global.queryNanos();
    }

    void loginStarted(ClientConnection client) {
        loops.add(client.socket.eventLoop());
        loggingIn.add(client);
        // after the add: a janitor deciding to sleep on finds the client, or is woken (Janitor.wake)
        wakeJanitor.run();
    }

    /**
     * Whether no client's timeout can be due, connected clients or not: none logs in under client_login_timeout or
     * query_timeout, and no logged-in client can run out of a limit (none is set, globally or for a user; no
     * server_fast_close; none waits for a server, whose query_wait_notify may come). The janitor may then sleep its
     * quiet period, as with no client: idle clients under PgBouncer's defaults cost it no pass a second. What makes
     * one due later wakes it: a login ({@link #loginStarted}), a wait (the pool's), a new setting (its apply).
     */
    public boolean nothingDue() {
        return !checksLoggingInClients() && !checksLoggedInClients();
    }

    void loginEnded(ClientConnection client) {
        loggingIn.remove(client);
    }

    long loginNanos() {
        return loginNanos;
    }

    /** On the janitor's thread: one pass for each event loop, which checks the clients of its own there. */
    @Override
    public void run() {
        boolean login = checksLoggingInClients();
        boolean loggedInRules = checksLoggedInClients();
        if (!login && !loggedInRules) {
            return;
        }
        for (EventLoop loop : loops) {
            loop.execute(() -> pass(loop, login, loggedInRules));
        }
    }

    /**
     * Whether this pass must look at the clients logging in: only while one does, as handing each event loop a
     * task wakes it, once a pass, for nothing.
     */
    boolean checksLoggingInClients() {
        return (loginNanos > 0 || global.queryNanos() > 0) && !loggingIn.isEmpty();
    }

    /**
     * Whether this pass must look at the logged-in clients. query_wait_notify is on by default, yet only a client
     * waiting for a server can be due its notice: checking every idle client for it would make each pass cost as
     * many checks as clients are connected, though none waits.
     */
    boolean checksLoggedInClients() {
        return anyLimit || fastClose || waitNotifySeconds > 0 && anyWaiting.getAsBoolean();
    }

    private void pass(EventLoop loop, boolean login, boolean loggedInRules) {
        long now = System.nanoTime();
        if (login) {
            for (ClientConnection client : loggingIn) {
                if (client.socket.eventLoop() == loop) {
                    client.checkTimeout(now, this);
                }
            }
        }
        if (loggedInRules) {
            for (ClientConnection client : loggedIn) {
                if (client.socket.eventLoop() == loop) {
                    client.checkTimeout(now, this);
                }
            }
        }
    }

    // ---------------------------------------------------------------- the rules

    /**
     * The error of a timeout of the client's request, transaction or server that closes its server too, or null:
     * server_fast_close (the linked server is marked close_needed and is ready: PgBouncer's word for no request
     * outstanding and no transaction open), query_timeout (the global one, PgBouncer's {@code query_timeout} text,
     * while the client waits for a server; the user's, {@code query timeout}, once it has one) or transaction_timeout.
     */
    ErrorResponse serverSideExpiry(Link link, Limits limits, long now) {
        LentServer<ServerConnection> held = link.lent;
        if (fastClose && held != null && link.state == ServerLoan.State.LINKED && link.queryStartNanos == 0
                && link.transactionStartNanos == 0 && link.serverIdle() && held.closeNeeded()) {
            return PoolerError.databaseConfigurationChanged();
        }
        boolean linked = link.server != null;
        long query = link.queryStartNanos;
        if (query != 0) {
            long limit = linked ? limits.queryNanos() : waitingQueryNanos();
            if (limit > 0 && now - query >= limit) {
                return linked ? PoolerError.queryTimeout() : PoolerError.waitingQueryTimeout();
            }
        }
        long transaction = link.transactionStartNanos;
        if (transaction != 0 && linked && limits.transactionNanos() > 0
                && now - transaction >= limits.transactionNanos()) {
            return PoolerError.transactionTimeout();
        }
        return null;
    }

    /**
     * Whether the client has waited for a server longer than query_wait_notify in whole seconds (PgBouncer's test)
     * without being told.
     */
    boolean waitNoticeDue(Link link, long now) {
        long since = link.waitStartNanos;
        int notify = waitNotifySeconds;
        return notify > 0 && since != 0 && !link.waitNoticeSent && (now - since) / 1_000_000_000L > notify;
    }

    /**
     * The error of the timeout a quiet client has run out of, or null: {@code running} since {@code since}
     * (client_login_timeout, client_idle_timeout, idle_transaction_timeout). As PgBouncer's, the global
     * query_timeout also ends a client waiting at login for the pool's first server.
     */
    ErrorResponse quietExpiry(Timeout running, long since, Limits limits, long now) {
        if (running == null) {
            return null;
        }
        long ownLimit = switch (running) {
            case LOGIN, WELCOME -> loginNanos;
            case IDLE -> limits.idleNanos();
            case IDLE_IN_TRANSACTION -> limits.idleTransactionNanos();
        };
        long waiting = waitingQueryNanos();
        boolean queryTimeoutFirst = running == Timeout.WELCOME && waiting > 0 && (ownLimit <= 0 || waiting < ownLimit);
        long limit = queryTimeoutFirst ? waiting : ownLimit;
        if (limit > 0 && now - since >= limit) {
            return queryTimeoutFirst ? PoolerError.waitingQueryTimeout() : running.error();
        }
        return null;
    }
}
