package io.pgmux.proxy.server;

import io.pgmux.core.pool.Failures;
import io.pgmux.core.pool.PoolKey;
import io.pgmux.core.pool.ServerHandle;
import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.protocol.PoolerError;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One login's walk over a database's host list, as libpq walks it: from the host load_balance_hosts picks, each
 * host in turn until one accepts the login and, when target_session_attrs asks, is of the wanted kind (one query
 * after the login). When hosts answered but none was of that kind (a failover between the old primary's stop
 * and the standby's promotion), the walk starts again after a pause growing from 25 to 500 ms, until three
 * quarters of server_connect_timeout have passed. Never blocks: every step runs when the previous one completes.
 */
final class HostSearch {
    private static final String CANNOT_CONNECT_NOW = "57P03";
    private static final long FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(25);
    private static final long LONGEST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private final NettyServerConnector connector;
    private final ServerTarget target;
    private final List<ServerHost> hosts;
    private final Handle handle;
    private final long deadlineNanos;
    private final CompletableFuture<ServerConnection> result = new CompletableFuture<>();
    private final List<String> failures = new ArrayList<>();
    private long pauseNanos = FIRST_PAUSE_NANOS;
    private int start;
    private int tried;
    private Throwable lastFailure;
    private ServerErrorException refusal;
    private boolean wrongKind;
    /** prefer-standby: the first server that was not a standby, taken if no standby answers. */
    private ServerConnection fallback;
    private ServerHost fallbackHost;

    HostSearch(NettyServerConnector connector, ServerTarget target, ServerHandle handle, long searchNanos) {
        this.connector = connector;
        this.target = target;
        this.hosts = target.hosts();
        this.handle = new Handle(handle);
        this.deadlineNanos = System.nanoTime() + searchNanos;
    }

    CompletableFuture<ServerConnection> run() {
        round();
        return result;
    }

    private void round() {
        failures.clear();
        lastFailure = null;
        refusal = null;
        wrongKind = false;
        tried = 0;
        connector.firstHost().thenAccept(first -> {
            start = first;
            next();
        });
    }

    private void next() {
        if (tried == hosts.size()) {
            roundOver();
            return;
        }
        int index = (start + tried++) % hosts.size();
        ServerHost host = hosts.get(index);
        connector.openAt(handle, target.at(host)).whenComplete((server, failure) -> {
            if (failure != null) {
                connector.hostFailed(index);
                failed(host, Failures.cause(failure));
                return;
            }
            connector.hostConnected(index);
            if (target.targetSessionAttrs() == TargetSessionAttrs.ANY) {
                choose(host, server);
            } else {
                check(host, server);
            }
        });
    }

    private void check(ServerHost host, ServerConnection server) {
        List<String[]> rows = new ArrayList<>(1);
        server.query(TargetSessionAttrs.CHECK_QUERY, rows).whenComplete((error, failure) -> {
            if (failure != null || error != null || rows.size() != 1) {
                server.close();
                failed(host, failure != null ? Failures.cause(failure)
                        : new ServerErrorException(error != null ? error : PoolerError.serverLoginFailed(
                                "target_session_attrs check returned " + rows.size() + " rows")));
                return;
            }
            boolean inRecovery = "t".equals(rows.get(0)[0]);
            boolean readOnly = "on".equals(rows.get(0)[1]);
            TargetSessionAttrs attrs = target.targetSessionAttrs();
            if (attrs.accepts(inRecovery, readOnly)) {
                choose(host, server);
                return;
            }
            if (attrs == TargetSessionAttrs.PREFER_STANDBY && fallback == null) {
                fallback = server;
                fallbackHost = host;
            } else {
                server.close();
            }
            wrongKind = true;
            failures.add(host + " (" + (inRecovery ? "standby" : "primary") + (readOnly ? ", read-only" : "") + ")");
            next();
        });
    }

    private void choose(ServerHost host, ServerConnection server) {
        if (!server.isOpen()) {
            if (server == fallback) {
                fallback = null;
            }
            failed(host, new ConnectException("connection closed after the login"));
            return;
        }
        if (fallback != null && fallback != server) {
            fallback.close();
        }
        fallback = null;
        handle.adopt();
        result.complete(server);
    }

    private void failed(ServerHost host, Throwable failure) {
        lastFailure = failure;
        ServerErrorException error = ServerErrorException.find(failure);
        if (error != null && refusal == null) {
            refusal = error;
        }
        failures.add(host + " (" + reason(failure) + ")");
        next();
    }

    private void roundOver() {
        if (fallback != null) {
            choose(fallbackHost, fallback);
            return;
        }
        long now = System.nanoTime();
        if (wrongKind && now + pauseNanos < deadlineNanos) {
            long pause = pauseNanos;
            pauseNanos = Math.min(LONGEST_PAUSE_NANOS, pauseNanos * 2);
            connector.schedule(this::round, pause);
            return;
        }
        result.completeExceptionally(failure());
    }

    /**
     * What the pool and its clients see: the server's own error where a host refused the login, PgBouncer's
     * cannot-connect for a list none of whose hosts could be reached (naming each and why), a one-host target's
     * own failure unchanged.
     */
    private Throwable failure() {
        if (wrongKind) {
            // cannot_connect_now: a failover in progress, which the pool waits out as a server starting up
            return new ServerErrorException(ErrorResponse.fatal(CANNOT_CONNECT_NOW, "server login failed: no server "
                    + "with target_session_attrs=" + target.targetSessionAttrs() + " among " + String.join(", ", failures)));
        }
        if (refusal != null) {
            return refusal;
        }
        if (hosts.size() == 1) {
            return lastFailure;
        }
        return new ConnectException("could not connect to any host of " + target.dbname() + ": "
                + String.join(", ", failures));
    }

    private static String reason(Throwable failure) {
        if (failure instanceof UnknownHostException) {
            return failure.getMessage();
        }
        String message = failure.getMessage();
        if (message == null) {
            return failure.getClass().getSimpleName();
        }
        // Netty's native transport prefixes the errno text with the call that failed
        int call = message.indexOf("): ");
        return call >= 0 && message.startsWith("finishConnect") ? message.substring(call + 3) : message;
    }

    /**
     * The pool's handle as the connections tried see it: a connection the walk closes again must not report the
     * pooled server broken, so reports pass only once the walk has chosen a connection.
     */
    private static final class Handle implements ServerHandle {
        private final ServerHandle pooled;
        private volatile boolean adopted;

        Handle(ServerHandle pooled) {
            this.pooled = pooled;
        }

        void adopt() {
            adopted = true;
        }

        @Override
        public long id() {
            return pooled.id();
        }

        @Override
        public PoolKey poolKey() {
            return pooled.poolKey();
        }

        @Override
        public void markBroken(Throwable cause) {
            if (adopted) {
                pooled.markBroken(cause);
            }
        }

        @Override
        public long connectedAtNanos() {
            return pooled.connectedAtNanos();
        }

        @Override
        public boolean closeNeeded() {
            return pooled.closeNeeded();
        }
    }
}
