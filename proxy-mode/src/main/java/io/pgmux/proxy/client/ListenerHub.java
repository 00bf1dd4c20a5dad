package io.pgmux.proxy.client;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.EventExecutor;
import io.pgmux.core.pool.Lease;
import io.pgmux.core.pool.Pool;
import io.pgmux.proxy.protocol.BackendMessage;
import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.server.ServerConnection;
import io.pgmux.proxy.server.ServerLink;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * LISTEN for a transaction-pooled pool without pinning its clients: one server connection of the pool, taken while
 * anybody listens, LISTENs to the union of its clients' channels, and every NotificationResponse it receives goes
 * to each client listening on that channel, whether or not that client holds a server at the moment (it gets the
 * notification once it has none, between its transactions, as a direct connection would). A channel nobody
 * listens to any more is UNLISTENed, and the server goes back to the pool when no channel is left. When that server
 * connection is lost the hub takes another and LISTENs again; its clients get a warning that notifications sent
 * meanwhile were lost, which PostgreSQL itself cannot promise across a restart either.
 * <p>
 * All its state lives on one event loop; clients are told on theirs.
 */
final class ListenerHub implements ServerLink {
    private static final Logger log = LoggerFactory.getLogger(ListenerHub.class);
    private static final long RETRY_MILLIS = 1000;

    /** One statement for the hub's server connection and whom to tell when it ran. */
    private record Op(String sql, BiConsumer<ErrorResponse, Throwable> done) {
    }

    private final Pool<ServerConnection> pool;
    private final EventExecutor loop;
    /** Clients by channel; a channel is here exactly while somebody listens to it. */
    private final Map<String, Set<ListenInterception>> listeners = new HashMap<>();
    /** Channels the server connection LISTENs to now. */
    private final Set<String> listening = new LinkedHashSet<>();
    private final ArrayDeque<Op> ops = new ArrayDeque<>();
    private Lease<ServerConnection> lease;
    private ServerConnection server;
    private boolean acquiring;
    private boolean running;
    /** Bumped for each server connection, so that a late callback of a lost one is recognised. */
    private int generation;

    ListenerHub(Pool<ServerConnection> pool, EventExecutor loop) {
        this.pool = pool;
        this.loop = loop;
    }

    /**
     * {@code link} listens to {@code channel} once the server connection does; {@code done} is called on the hub's
     * loop with the server's error (or a failure), or two nulls when it listens.
     */
    void listen(ListenInterception link, String channel, BiConsumer<ErrorResponse, Throwable> done) {
        loop.execute(() -> {
            listeners.computeIfAbsent(channel, c -> new LinkedHashSet<>()).add(link);
            if (listening.contains(channel)) {
                done.accept(null, null);
                return;
            }
            submit(new Op(new ListenRequest(true, channel).sql(), (error, failure) -> {
                if (error == null && failure == null) {
                    listening.add(channel);
                } else {
                    forget(link, channel);
                }
                done.accept(error, failure);
            }));
        });
    }

    /** {@code link} stops listening to {@code channel}, or to every channel when it is null; at once. */
    void unlisten(ListenInterception link, String channel) {
        loop.execute(() -> {
            if (channel != null) {
                forget(link, channel);
                return;
            }
            for (String c : listeners.keySet().toArray(new String[0])) {
                forget(link, c);
            }
        });
    }

    private void forget(ListenInterception link, String channel) {
        Set<ListenInterception> links = listeners.get(channel);
        if (links == null || !links.remove(link) || !links.isEmpty()) {
            return;
        }
        listeners.remove(channel);
        if (listening.remove(channel)) {
            submit(new Op(new ListenRequest(false, channel).sql(), (error, failure) -> { }));
        }
    }

    private void submit(Op op) {
        ops.add(op);
        runNext();
    }

    /** Runs the next statement once a server connection is there and the last one finished. */
    private void runNext() {
        if (running) {
            return;
        }
        if (server == null) {
            if (listeners.isEmpty()) {
                failAll(null);
            } else if (!acquiring) {
                acquire();
            }
            return;
        }
        Op op = ops.poll();
        if (op == null) {
            if (listeners.isEmpty()) {
                giveBack();
            }
            return;
        }
        running = true;
        int current = generation;
        server.query(op.sql()).whenComplete((error, failure) -> loop.execute(() -> {
            if (current != generation) {
                // the connection was lost meanwhile: its LISTENs are being run again on the next one
                op.done().accept(null, failure != null ? failure : new IllegalStateException("server lost"));
                return;
            }
            running = false;
            op.done().accept(error, failure);
            runNext();
        }));
    }

    private void acquire() {
        acquiring = true;
        pool.acquireAsync(loop).whenComplete((acquired, failure) -> loop.execute(() -> {
            acquiring = false;
            if (failure != null) {
                log.warn("pool {}: no server connection to LISTEN on: {}", pool.name(), failure.toString());
                failAll(failure);
                if (!listeners.isEmpty()) {
                    loop.schedule(this::relisten, RETRY_MILLIS, TimeUnit.MILLISECONDS);
                }
                return;
            }
            if (listeners.isEmpty() && ops.isEmpty()) {
                acquired.release();
                return;
            }
            lease = acquired;
            server = acquired.connection();
            generation++;
            server.link(this);
            runNext();
        }));
    }

    /** After a failure: LISTEN again on a new server connection to every channel still wanted. */
    private void relisten() {
        if (server != null || acquiring || listeners.isEmpty()) {
            return;
        }
        for (String channel : listeners.keySet()) {
            ops.add(new Op(new ListenRequest(true, channel).sql(), (error, failure) -> {
                if (error == null && failure == null) {
                    listening.add(channel);
                }
            }));
        }
        runNext();
    }

    /** Tells those waiting for a statement that it will not run. */
    private void failAll(Throwable failure) {
        Op op;
        while ((op = ops.poll()) != null) {
            op.done().accept(null, failure != null ? failure : new IllegalStateException("nobody listens"));
        }
    }

    private void giveBack() {
        Lease<ServerConnection> held = lease;
        ServerConnection was = server;
        lease = null;
        server = null;
        generation++;
        listening.clear();
        was.unlink(this);
        // UNLISTEN * first: the next client of the connection must not receive this pool's notifications
        was.query("UNLISTEN *").whenComplete((error, failure) -> {
            if (error == null && failure == null) {
                held.release();
            } else {
                held.discard(failure != null ? failure : new IllegalStateException(error.message()));
            }
        });
    }

    // ---------------------------------------------------------------- from the server connection

    @Override
    public void onServerMessage(BackendMessage message) {
        if (message.type() != BackendMessage.NOTIFICATION_RESPONSE) {
            message.release();
            return;
        }
        if (loop.inEventLoop()) {
            deliver(message);
        } else {
            BackendMessage kept = message.keep(); // the decoder reuses the holder it passed
            loop.execute(() -> deliver(kept));
        }
    }

    /** Walks the message's frames (a run of notifications comes as one) and hands each to its channel's clients. */
    private void deliver(BackendMessage message) {
        try {
            ByteBuf frames = message.content();
            int at = frames.readerIndex();
            int end = frames.writerIndex();
            while (at < end) {
                int next = at + 1 + frames.getInt(at + 1);
                if (frames.getByte(at) == BackendMessage.NOTIFICATION_RESPONSE) {
                    // type, length, the sender's process id, then the channel
                    int channelStart = at + 9;
                    int channelEnd = frames.indexOf(channelStart, next, (byte) 0);
                    if (channelEnd > 0) {
                        Set<ListenInterception> links = listeners.get(
                                frames.toString(channelStart, channelEnd - channelStart, StandardCharsets.UTF_8));
                        if (links != null) {
                            for (ListenInterception link : links) {
                                link.notification(frames.retainedSlice(at, next - at));
                            }
                        }
                    }
                }
                at = next;
            }
        } finally {
            message.release();
        }
    }

    @Override
    public void onServerReadComplete() {
        // each notification is flushed by its client's loop
    }

    @Override
    public void onServerClosed(ServerConnection closed, Throwable cause) {
        loop.execute(() -> {
            if (server == null || server != closed) {
                return;
            }
            log.warn("pool {}: the server connection that LISTENs for its clients was lost: {}", pool.name(),
                    cause.toString());
            Lease<ServerConnection> lost = lease;
            lease = null;
            server = null;
            generation++;
            running = false;
            listening.clear();
            lost.discard(cause);
            Set<ListenInterception> warned = new LinkedHashSet<>();
            listeners.values().forEach(warned::addAll);
            warned.forEach(ListenInterception::notificationsLost);
            relisten();
        });
    }

    @Override
    public void onServerWritabilityChanged(boolean writable) {
        // the hub writes only its own statements
    }
}
