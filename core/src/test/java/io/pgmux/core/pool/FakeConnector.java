package io.pgmux.core.pool;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A connector whose connections are plain objects. Logins complete at once unless the test holds them
 * ({@link #holdLogins}) or makes them fail ({@link #failLogins}); checks pass unless told otherwise.
 */
final class FakeConnector implements ServerConnector<FakeConnector.Conn> {

    static final class Conn {
        final int id;
        final ServerHandle handle;
        final Object affinity;
        volatile boolean closed;
        final AtomicInteger holders = new AtomicInteger();
        final AtomicInteger resets = new AtomicInteger();
        final AtomicInteger checks = new AtomicInteger();

        Conn(int id, ServerHandle handle, Object affinity) {
            this.id = id;
            this.handle = handle;
            this.affinity = affinity;
        }

        @Override
        public String toString() {
            return "conn-" + id;
        }
    }

    final AtomicInteger opened = new AtomicInteger();
    final AtomicInteger closedCount = new AtomicInteger();
    final AtomicInteger loginAttempts = new AtomicInteger();
    final List<Conn> all = new ArrayList<>();
    final ConcurrentLinkedQueue<CompletableFuture<Conn>> heldLogins = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<ServerHandle> heldHandles = new ConcurrentLinkedQueue<>();
    /** When set, connection n (from 1) gets affinity {@code affinities[(n - 1) % length]}. */
    volatile Object[] affinities;
    volatile boolean holdLogins;
    volatile Throwable failLogins;
    volatile boolean failChecks;
    volatile boolean transientFailures;
    volatile boolean holdResets;
    final ConcurrentLinkedQueue<CompletableFuture<Void>> heldResets = new ConcurrentLinkedQueue<>();

    /** The startup parameters of each dedicated login, in order. */
    final List<Map<String, String>> dedicatedStartups = new ArrayList<>();

    @Override
    public CompletionStage<Conn> openDedicated(ServerHandle handle, Map<String, String> startupParameters) {
        synchronized (dedicatedStartups) {
            dedicatedStartups.add(startupParameters);
        }
        return open(handle);
    }

    @Override
    public CompletionStage<Conn> open(ServerHandle handle) {
        loginAttempts.incrementAndGet();
        if (failLogins != null) {
            return CompletableFuture.failedFuture(failLogins);
        }
        if (holdLogins) {
            CompletableFuture<Conn> f = new CompletableFuture<>();
            heldLogins.add(f);
            heldHandles.add(handle);
            return f;
        }
        return CompletableFuture.completedFuture(newConn(handle));
    }

    Conn newConn(ServerHandle handle) {
        int id = opened.incrementAndGet();
        Object[] a = affinities;
        Conn c = new Conn(id, handle, a == null ? null : a[(id - 1) % a.length]);
        synchronized (all) {
            all.add(c);
        }
        return c;
    }

    /** Completes the oldest held login successfully. */
    void completeOneLogin() {
        CompletableFuture<Conn> f = heldLogins.poll();
        ServerHandle h = heldHandles.poll();
        f.complete(newConn(h));
    }

    @Override
    public Object affinity(Conn server) {
        return server.affinity;
    }

    @Override
    public CompletionStage<Boolean> test(Conn server, String checkQuery) {
        server.checks.incrementAndGet();
        return CompletableFuture.completedFuture(!failChecks && !server.closed);
    }

    @Override
    public CompletionStage<Void> reset(Conn server, String resetQuery) {
        server.resets.incrementAndGet();
        if (holdResets) {
            CompletableFuture<Void> f = new CompletableFuture<>();
            heldResets.add(f);
            return f;
        }
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public void close(Conn server) {
        if (server.closed) {
            throw new AssertionError(server + " closed twice");
        }
        server.closed = true;
        closedCount.incrementAndGet();
    }

    @Override
    public boolean isTransientLoginFailure(Throwable failure) {
        return transientFailures;
    }

    int live() {
        return opened.get() - closedCount.get();
    }
}
