package io.pgmux.proxy;

import io.pgmux.proxy.admin.AdminConsole;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The ways a proxy stops, as PgBouncer's: at once after a drain ({@link #close()}), once transactions in flight
 * are done (WAIT_FOR_SERVERS), once every client has left (WAIT_FOR_CLIENTS).
 */
final class ProxyShutdown {
    private final RunningProxy running;
    private final Duration drainTimeout;
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    /** Taken by the one thread that closes; SHUTDOWN on the console and close() may cross. */
    private final AtomicBoolean closing = new AtomicBoolean();

    ProxyShutdown(RunningProxy running, Duration drainTimeout) {
        this.running = running;
        this.drainTimeout = drainTimeout;
    }

    /** See {@link PgMuxProxy#close()}. */
    void close() {
        if (!closing.compareAndSet(false, true)) {
            // another thread closes: done once it is, not before
            closed.join();
            return;
        }
        try {
            running.context().shutdownBegins();
            running.listeners().close();
            try {
                running.registry().closeGracefully().toCompletableFuture()
                        .get(drainTimeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                // what did not drain in time is closed below
            }
            try {
                running.clients().closeAll(drainTimeout.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            running.registry().close();
            running.context().closeReplicaRoutes();
            // the members leave over server connections, before the event loops stop
            running.fleets().close();
            if (running.metrics() != null) {
                running.metrics().close();
            }
            running.transport().shutdown().syncUninterruptibly();
        } finally {
            closed.complete(null);
        }
    }

    /** See {@link PgMuxProxy#closeWaitForServers()}. */
    void closeWaitForServers() {
        if (closed.isDone()) {
            return;
        }
        running.context().shutdownBegins();
        running.listeners().closeTcp();
        running.registry().closeGracefully().toCompletableFuture().join();
        close();
    }

    /** See {@link PgMuxProxy#closeWaitForClients()}. */
    void closeWaitForClients() throws InterruptedException {
        if (closed.isDone()) {
            return;
        }
        running.context().shutdownBegins();
        running.listeners().closeTcp();
        running.clients().awaitAllClosed();
        close();
    }

    /** The admin console's SHUTDOWN, on the executor for blocking work: closing blocks. */
    void shutdown(AdminConsole.Shutdown mode) {
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

    CompletionStage<Void> closeFuture() {
        return closed;
    }
}
