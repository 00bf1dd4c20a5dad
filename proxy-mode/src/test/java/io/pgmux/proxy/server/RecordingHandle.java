package io.pgmux.proxy.server;

import io.pgmux.core.pool.PoolKey;
import io.pgmux.core.pool.ServerHandle;
import java.util.concurrent.CompletableFuture;

/** The pool's side of one server connection, as a connector test sees it: what the connection reported. */
final class RecordingHandle implements ServerHandle {
    final CompletableFuture<Throwable> broken = new CompletableFuture<>();

    @Override
    public long id() {
        return 1;
    }

    @Override
    public PoolKey poolKey() {
        return new PoolKey("db", "user");
    }

    @Override
    public void markBroken(Throwable cause) {
        broken.complete(cause);
    }

    @Override
    public long connectedAtNanos() {
        return 0;
    }

    @Override
    public boolean closeNeeded() {
        return false;
    }
}
