package io.pgmux.proxy.server;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.pgmux.proxy.protocol.CancelRequest;
import io.pgmux.proxy.protocol.MessageEncoder;
import io.pgmux.proxy.transport.Transport;
import java.net.SocketAddress;

/**
 * Forwards a cancel as PostgreSQL expects it: a new connection carrying only a CancelRequest with the server's
 * key, closed right after. The server answers nothing.
 */
public final class CancelSender {
    private final Transport transport;

    public CancelSender(Transport transport) {
        this.transport = transport;
    }

    public void send(SocketAddress server, io.pgmux.proxy.protocol.BackendKeyData key) {
        new Bootstrap()
                .group(transport.group())
                .channel(transport.socketChannel())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5_000)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(MessageEncoder.INSTANCE);
                    }
                })
                .connect(server)
                .addListener((ChannelFutureListener) f -> {
                    if (f.isSuccess()) {
                        f.channel().writeAndFlush(new CancelRequest(key.processId(), key.secretKey()))
                                .addListener(ChannelFutureListener.CLOSE);
                    }
                });
    }
}
