package io.pgmux.proxy.server;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.pgmux.proxy.protocol.CancelRequest;
import io.pgmux.proxy.protocol.MessageEncoder;
import io.pgmux.proxy.transport.Transport;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Forwards a cancel as PostgreSQL expects it: a new connection carrying only a CancelRequest with the server's
 * key. The server answers nothing and closes that connection once it has signalled the backend, so the
 * returned stage completing means the backend has been told: only then may its connection serve another
 * client, or a late signal could cancel that client's query instead.
 */
public final class CancelSender {
    /** How long to wait for the server to close a cancel connection before closing it ourselves. */
    private static final long CLOSE_WAIT_MILLIS = 5_000;

    private final Transport transport;

    public CancelSender(Transport transport) {
        this.transport = transport;
    }

    /** Sends the cancel; the stage completes (never exceptionally) when the cancel connection has closed. */
    public CompletableFuture<Void> send(SocketAddress server, io.pgmux.proxy.protocol.BackendKeyData key) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        new Bootstrap()
                .group(transport.group())
                .channel(transport.socketChannel())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) CLOSE_WAIT_MILLIS)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(MessageEncoder.INSTANCE);
                    }
                })
                .connect(server)
                .addListener((ChannelFutureListener) f -> {
                    if (!f.isSuccess()) {
                        done.complete(null);
                        return;
                    }
                    Channel ch = f.channel();
                    ScheduledFuture<?> giveUp = ch.eventLoop().schedule(() -> {
                        ch.close();
                    }, CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
                    ch.closeFuture().addListener(closed -> {
                        giveUp.cancel(false);
                        done.complete(null);
                    });
                    ch.writeAndFlush(new CancelRequest(key.processId(), key.secretKey()))
                            .addListener((ChannelFutureListener) w -> {
                                if (!w.isSuccess()) {
                                    ch.close();
                                }
                            });
                });
        return done;
    }
}
