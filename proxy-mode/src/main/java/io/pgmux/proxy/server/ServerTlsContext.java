package io.pgmux.proxy.server;

import io.netty.handler.ssl.SslContext;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * One TLS context for server connections, built when a server first accepts TLS: building one loads a few
 * hundred classes and, for verify-ca and verify-full without server_tls_ca_file, reads the JDK's trusted CAs,
 * a few hundred milliseconds that no event loop may wait for. So the first connection that needs it starts the
 * build on the proxy's executor for blocking work and goes on when it completes; the connections after it find
 * it built.
 */
final class ServerTlsContext {
    private final Supplier<SslContext> build;
    private final Executor blockingWork;
    private final AtomicReference<CompletableFuture<SslContext>> built = new AtomicReference<>();

    /**
     * @param build makes the context; may throw IllegalArgumentException, which fails the logins that need it
     * @param blockingWork where it is made
     */
    ServerTlsContext(Supplier<SslContext> build, Executor blockingWork) {
        this.build = build;
        this.blockingWork = blockingWork;
    }

    /** Completes with the context, at once once built; the first call starts the build. */
    CompletableFuture<SslContext> get() {
        CompletableFuture<SslContext> context = built.get();
        if (context != null) {
            return context;
        }
        CompletableFuture<SslContext> building = new CompletableFuture<>();
        if (!built.compareAndSet(null, building)) {
            return built.get();
        }
        blockingWork.execute(() -> {
            try {
                building.complete(build.get());
            } catch (Throwable e) {
                // whatever went wrong must reach the waiting logins, not leave them waiting
                building.completeExceptionally(e);
            }
        });
        return building;
    }
}
