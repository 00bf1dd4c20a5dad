package io.pgmux.jmh.stub;

import io.pgmux.core.pool.ServerConnector;
import io.pgmux.core.pool.ServerHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The pool engine's connector to no server: opening completes at once with a new {@link StubConnection},
 * checks always pass and resets do nothing, so that a benchmark of the engine measures the engine alone.
 */
public final class StubConnector implements ServerConnector<StubConnection> {
    private static final CompletionStage<Boolean> ALIVE = CompletableFuture.completedStage(Boolean.TRUE);
    private static final CompletionStage<Void> RESET = CompletableFuture.completedStage(null);

    @Override
    public CompletionStage<StubConnection> open(ServerHandle handle) {
        return CompletableFuture.completedFuture(new StubConnection());
    }

    @Override
    public CompletionStage<Boolean> test(StubConnection server, String checkQuery) {
        return server.isClosed() ? CompletableFuture.completedFuture(Boolean.FALSE) : ALIVE;
    }

    @Override
    public CompletionStage<Void> reset(StubConnection server, String resetQuery) {
        return RESET;
    }

    @Override
    public void close(StubConnection server) {
        server.close();
    }
}
