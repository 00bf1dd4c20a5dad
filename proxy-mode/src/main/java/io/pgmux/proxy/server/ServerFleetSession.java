package io.pgmux.proxy.server;

import io.pgmux.core.fleet.FleetQueryException;
import io.pgmux.core.fleet.FleetSession;
import io.pgmux.core.fleet.FleetSessions;
import io.pgmux.core.pool.PoolKey;
import io.pgmux.core.pool.ServerConnector;
import io.pgmux.core.pool.ServerHandle;
import io.pgmux.proxy.protocol.EncodableMessage;
import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.protocol.Sync;
import io.pgmux.proxy.protocol.UnnamedStatementRun;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A fleet member's coordination connection in the proxy: a server connection of the pool's connector, outside the
 * pool (not counted in its size), logged in as its servers are. Each statement is one extended-protocol batch
 * (Parse, Bind with the parameters as text, Execute, Sync) sent on the connection's event loop; the member's
 * heartbeat thread waits for the answer, never an event loop.
 */
public final class ServerFleetSession implements FleetSession {
    /** Ids of coordination connections, apart from the pools' servers' (negative, so never one of theirs). */
    private static final AtomicLong IDS = new AtomicLong();

    private final ServerConnector<ServerConnection> connector;
    private final ServerConnection server;
    private final Duration timeout;

    private ServerFleetSession(ServerConnector<ServerConnection> connector, ServerConnection server,
            Duration timeout) {
        this.connector = connector;
        this.server = server;
        this.timeout = timeout;
    }

    /** The sessions {@code connector} opens for the pool of {@code key}. */
    public static FleetSessions through(ServerConnector<ServerConnection> connector, PoolKey key) {
        return (applicationName, timeout) -> {
            CompletionStage<ServerConnection> opening = connector.openDedicated(new Handle(key),
                    Map.of("application_name", applicationName));
            try {
                return new ServerFleetSession(connector, await(opening, timeout, null), timeout);
            } catch (FleetQueryException e) {
                // a login that ends after its wait is closed once it does
                opening.thenAccept(late -> connector.close(late, "fleet coordination gave up its login"));
                throw e;
            }
        };
    }

    @Override
    public List<String[]> query(String sql, String... parameters) throws FleetQueryException {
        List<String[]> rows = new ArrayList<>();
        UnnamedStatementRun statement = new UnnamedStatementRun(sql, parameters);
        EncodableMessage request = out -> {
            statement.encode(out);
            Sync.INSTANCE.encode(out);
        };
        ErrorResponse error = await(server.request(request, rows), timeout, this);
        if (error != null) {
            throw new FleetQueryException("ERROR: " + error.message() + " (" + error.sqlState() + ")", null);
        }
        return rows;
    }

    private static <T> T await(CompletionStage<T> stage, Duration timeout, ServerFleetSession session)
            throws FleetQueryException {
        try {
            return stage.toCompletableFuture().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FleetQueryException("interrupted", e);
        } catch (ExecutionException e) {
            throw new FleetQueryException(String.valueOf(e.getCause().getMessage()), e.getCause());
        } catch (TimeoutException e) {
            if (session != null) {
                session.close();
            }
            throw new FleetQueryException("the server did not answer within " + timeout.toMillis() + " ms", e);
        }
    }

    @Override
    public void close() {
        connector.close(server, "fleet coordination ended");
    }

    /** The handle of a connection no pool holds: nothing to report its breaking to, the next statement fails. */
    private static final class Handle implements ServerHandle {
        private final long id = -IDS.incrementAndGet();
        private final PoolKey key;
        private final long connectedAt = System.nanoTime();

        Handle(PoolKey key) {
            this.key = key;
        }

        @Override
        public long id() {
            return id;
        }

        @Override
        public PoolKey poolKey() {
            return key;
        }

        @Override
        public void markBroken(Throwable cause) {
        }

        @Override
        public long connectedAtNanos() {
            return connectedAt;
        }

        @Override
        public boolean closeNeeded() {
            return false;
        }
    }
}
