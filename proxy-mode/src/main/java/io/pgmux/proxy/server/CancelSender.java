package io.pgmux.proxy.server;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.pgmux.proxy.log.ConnectionLog;
import io.pgmux.proxy.protocol.BackendKeyData;
import io.pgmux.proxy.protocol.CancelRequest;
import io.pgmux.proxy.transport.ChannelSocket;
import io.pgmux.proxy.transport.ConnectionSocket;
import io.pgmux.proxy.transport.Transport;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Forwards a cancel as PostgreSQL expects it: a new connection carrying only a CancelRequest with the server's
 * key. The server answers nothing and closes that connection once it has signalled the backend, so the
 * returned stage completing means the backend has been told: only then may its connection serve another
 * client, or a late signal could cancel that client's query instead. PgBouncer's cancel_wait_timeout bounds the
 * whole of it, connecting included: a cancel the server has not taken by then is given up.
 */
public final class CancelSender {
    private final Transport transport;
    private final ConnectionLog connectionLog;
    /** cancel_wait_timeout; 0 waits as long as it takes. RELOAD and SET change it for the cancels sent afterwards. */
    private volatile long waitMillis;

    /**
     * @param wait PgBouncer's cancel_wait_timeout: how long a cancel may take; zero disables the limit
     * @param connectionLog where the cancel connection's lines go, as PgBouncer logs its server connections
     */
    public CancelSender(Transport transport, Duration wait, ConnectionLog connectionLog) {
        this.transport = transport;
        this.connectionLog = connectionLog;
        this.waitMillis = wait.toMillis();
    }

    /** cancel_wait_timeout from now on; zero disables the limit. */
    public void waitTimeout(Duration wait) {
        this.waitMillis = wait.toMillis();
    }

    /** cancel_wait_timeout in effect, in milliseconds; 0 for none. */
    public long waitTimeoutMillis() {
        return waitMillis;
    }

    /**
     * Sends the cancel; the stage completes (never exceptionally) when the cancel connection has closed. The
     * connection is logged under the pool of the server it cancels ({@code database}/{@code user}), with PgBouncer's
     * {@code new connection to server} and {@code successfully sent cancel request} lines.
     */
    public CompletableFuture<Void> send(SocketAddress server, BackendKeyData key, String database, String user) {
        return deliver(server, key, () -> { }, database, user).thenApply(sent -> null);
    }

    /**
     * As {@link #send}, telling {@code connected} once the connection is open, and completing with whether the
     * CancelRequest went out on it (false when it could not connect or write, or cancel_wait_timeout ran out first).
     * A {@code database} of null (a cancel forwarded to a peer, which is no server of a pool) logs no lines.
     */
    public CompletableFuture<Boolean> deliver(SocketAddress server, BackendKeyData key, Runnable connected,
            String database, String user) {
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        long waitMillis = this.waitMillis;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
        new Bootstrap()
                .group(transport.group())
                .channel(transport.channelFor(server))
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, waitMillis))
                // nothing is read on it, and the one message it sends is written encoded: no handler
                .handler(new ChannelInboundHandlerAdapter())
                .connect(server)
                .addListener((ChannelFutureListener) f -> {
                    if (!f.isSuccess()) {
                        done.complete(false);
                        return;
                    }
                    connected.run();
                    Channel ch = f.channel();
                    // for the log lines alone
                    ConnectionSocket socket = new ChannelSocket(ch, null);
                    long connectedNanos = System.nanoTime();
                    if (database != null) {
                        connectionLog.serverConnected(ch, socket, database, user);
                    }
                    boolean[] written = {false};
                    ScheduledFuture<?> giveUp = waitMillis == 0 ? null : ch.eventLoop().schedule(() -> {
                        ch.close();
                    }, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    ch.closeFuture().addListener(closed -> {
                        boolean gaveUp = giveUp != null && giveUp.isDone() && !giveUp.isCancelled();
                        if (giveUp != null) {
                            giveUp.cancel(false);
                        }
                        if (database != null) {
                            connectionLog.serverClosing(ch, socket, database, user, gaveUp ? "cancel_wait_timeout"
                                    : "successfully sent cancel request", connectedNanos);
                        }
                        done.complete(written[0]);
                    });
                    ch.writeAndFlush(new CancelRequest(key.processId(), key.secretKey()).encode(ch.alloc()))
                            .addListener((ChannelFutureListener) w -> {
                                if (w.isSuccess()) {
                                    written[0] = true;
                                } else {
                                    ch.close();
                                }
                            });
                });
        return done;
    }
}
