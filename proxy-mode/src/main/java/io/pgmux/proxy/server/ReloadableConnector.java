package io.pgmux.proxy.server;

import io.pgmux.core.pool.ServerConnector;
import io.pgmux.core.pool.ServerHandle;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * A pool's connector whose target and login RELOAD may replace: connections opened from then on go to the new
 * target, those open already stay as they are (RELOAD marks them to close when released, as PgBouncer does).
 */
public final class ReloadableConnector implements ServerConnector<ServerConnection> {
    private volatile NettyServerConnector current;

    public ReloadableConnector(NettyServerConnector initial) {
        this.current = initial;
    }

    /** Where and as whom connections are opened from now on. */
    public void replace(NettyServerConnector next) {
        this.current = next;
    }

    public ServerTarget target() {
        return current.target();
    }

    @Override
    public CompletionStage<ServerConnection> open(ServerHandle handle) {
        return current.open(handle);
    }

    @Override
    public CompletionStage<ServerConnection> openDedicated(ServerHandle handle, Map<String, String> startupParameters) {
        return current.openDedicated(handle, startupParameters);
    }

    @Override
    public CompletionStage<Boolean> test(ServerConnection server, String checkQuery) {
        return current.test(server, checkQuery);
    }

    @Override
    public CompletionStage<Void> reset(ServerConnection server, String resetQuery) {
        return current.reset(server, resetQuery);
    }

    @Override
    public void close(ServerConnection server) {
        current.close(server);
    }

    @Override
    public void close(ServerConnection server, String reason) {
        current.close(server, reason);
    }

    @Override
    public Object affinity(ServerConnection server) {
        return current.affinity(server);
    }

    @Override
    public boolean isTransientLoginFailure(Throwable failure) {
        return current.isTransientLoginFailure(failure);
    }
}
