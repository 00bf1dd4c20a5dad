package io.pgmux.proxy.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.IoEventLoop;
import io.netty.channel.epoll.AbstractEpollStreamChannel;
import io.netty.channel.unix.Socket;
import io.pgmux.proxy.protocol.MessageCodec;
import java.net.SocketAddress;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * A logged-in connection's socket leaves its Netty channel for an {@link EpollSocket}, which serves its descriptor
 * on the same loop from then on: the client's after its login, the server's before its pool has it.
 */
public final class ChannelTakeOver {
    private ChannelTakeOver() {
    }

    /**
     * Takes the socket of {@code from}'s channel, a logged-in client's or server's, off the channel, when it is a plain
     * epoll socket whose pipeline holds its codec alone (no TLS, no read gate) and whose channel has nothing left to
     * send; on its event loop. The channel stops reading and leaves the loop. Once it is out, and if all of that still
     * holds and {@code idle} still says so, {@code served} gets the socket that serves its descriptor from then on, on
     * the loop, and the channel is dropped unclosed; else the channel goes back to the loop, reads again, and
     * {@code kept} runs. Returns false, and nothing changes, when it is not such a socket. A channel closed before it
     * left the loop, or that cannot go back, stays: its connection hears of the close from it, and neither
     * {@code served} nor {@code kept} is called.
     */
    public static boolean takeOver(ChannelSocket from, MessageCodec codec, SocketEvents events,
            ServedSockets sockets, BooleanSupplier idle, Consumer<EpollSocket> served, Runnable kept) {
        Channel channel = from.channel();
        if (!EpollSocket.ADDRESSES || !(channel instanceof AbstractEpollStreamChannel epoll)
                || !(channel.eventLoop() instanceof IoEventLoop loop) || !channel.isActive() || sockets.closingAll()) {
            return false;
        }
        channel.flush();
        ChannelHandlerContext ctx = channel.pipeline().firstContext();
        if (!servesAlone(channel, codec, ctx)) {
            return false;
        }
        ReadPauses.pause(channel, ReadPauses.LEAVING_CHANNEL);
        SocketAddress remote = channel.remoteAddress();
        SocketAddress local = sockets.shared(channel.localAddress());
        int peerPid = from.peerPid();
        channel.deregister().addListener(left -> {
            if (!channel.isOpen()) {
                return;
            }
            if (!left.isSuccess() || !servesAlone(channel, codec, ctx) || !idle.getAsBoolean()
                    || sockets.closingAll()) {
                // something came meanwhile (an error on its way out, a read gate): the channel keeps the socket
                loop.register(channel).addListener(back -> {
                    if (back.isSuccess()) {
                        ReadPauses.resume(channel, ReadPauses.LEAVING_CHANNEL);
                        kept.run();
                    } else {
                        channel.close();
                    }
                });
                return;
            }
            int pauses = codec.readPauses() & ~ReadPauses.LEAVING_CHANNEL;
            EpollSocket socket;
            ByteBuf held = null;
            try {
                held = codec.leaveChannel(ctx);
                socket = EpollSocket.serve((Socket) epoll.fd(), loop, codec, events, sockets, remote, local, peerPid,
                        pauses);
            } catch (Exception e) {
                if (held != null) {
                    held.release();
                }
                // the descriptor is the channel's still: the connection closes it through the channel, which tells
                // no one once out of its loop
                events.failed(e);
                events.closed();
                return;
            }
            from.succeededBy(socket);
            sockets.handedOver(channel, socket);
            served.accept(socket);
            // only now, when everything that writes to the client or closes it reaches the new socket
            socket.frameLeft(held);
        });
        return true;
    }

    /** The codec is the pipeline's only handler (no TLS, no read gate) and nothing waits to go out. */
    private static boolean servesAlone(Channel channel, MessageCodec codec, ChannelHandlerContext ctx) {
        ChannelPipeline pipeline = channel.pipeline();
        ChannelOutboundBuffer out = channel.unsafe().outboundBuffer();
        return ctx != null && ctx.handler() == codec && pipeline.firstContext() == ctx && pipeline.lastContext() == ctx
                && out != null && out.isEmpty();
    }
}
