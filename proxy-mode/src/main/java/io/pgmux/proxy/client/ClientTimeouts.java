package io.pgmux.proxy.client;

import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.protocol.PoolerError;
import java.time.Duration;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * PgBouncer's client_login_timeout, client_idle_timeout and idle_transaction_timeout, checked for every client on
 * each pass of core's janitor, as PgBouncer's janitor.c does: no timer object per client, only the timeout each
 * runs and since when. The check runs on the janitor's thread and only reads; a client whose timeout passed is
 * closed on its own event loop.
 */
public final class ClientTimeouts implements Runnable {

    /** The timeout running for a client, with the error PgBouncer closes it with. */
    enum Timeout {
        LOGIN(PoolerError.clientLoginTimeout()),
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

    /** Clients between connecting and their welcome; those logged in are in {@link #loggedIn}. */
    private final Set<ClientConnection> loggingIn = ConcurrentHashMap.newKeySet();
    private final Collection<ClientConnection> loggedIn;
    private final long loginNanos;
    private volatile long idleNanos;
    private volatile long idleTransactionNanos;

    /**
     * @param loggedIn the logged-in clients, live
     * @param loginMillis client_login_timeout; 0 means none
     */
    ClientTimeouts(Collection<ClientConnection> loggedIn, long loginMillis) {
        this.loggedIn = loggedIn;
        this.loginNanos = Duration.ofMillis(loginMillis).toNanos();
    }

    /** client_idle_timeout and idle_transaction_timeout; zero turns each off. */
    void idle(Duration clientIdle, Duration idleTransaction) {
        this.idleNanos = clientIdle.toNanos();
        this.idleTransactionNanos = idleTransaction.toNanos();
    }

    void loginStarted(ClientConnection client) {
        loggingIn.add(client);
    }

    void loginEnded(ClientConnection client) {
        loggingIn.remove(client);
    }

    long limitNanos(Timeout timeout) {
        return switch (timeout) {
            case LOGIN -> loginNanos;
            case IDLE -> idleNanos;
            case IDLE_IN_TRANSACTION -> idleTransactionNanos;
        };
    }

    @Override
    public void run() {
        long now = System.nanoTime();
        if (loginNanos > 0) {
            for (ClientConnection client : loggingIn) {
                client.checkTimeout(now, this);
            }
        }
        if (idleNanos > 0 || idleTransactionNanos > 0) {
            for (ClientConnection client : loggedIn) {
                client.checkTimeout(now, this);
            }
        }
    }
}
