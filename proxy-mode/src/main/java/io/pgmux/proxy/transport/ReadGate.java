package io.pgmux.proxy.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * SUSPEND's stop of reading, shared by every client and server socket of a proxy: while closed, what a socket has
 * read is held back from the rest of its pipeline and the socket stops reading (PgBouncer stops listening for data
 * on its sockets), until {@link #open()} hands the held bytes on in order and reading goes on. The handler that
 * holds them is put in a socket's pipeline only while the gate is closed (first, behind an SslHandler), so that
 * the reads of a proxy never suspended pass no handler more; an admin console session is not gated, so that
 * RESUME can be read. A server socket served without a channel since its login ({@link EpollSocket}) joins the gate's
 * set of them (the gate is its {@link ServedSockets}) and stops reading while the gate is closed.
 */
public final class ReadGate implements ServedSockets {
    /** The handler's name in a pipeline. */
    public static final String NAME = "read-gate";

    private volatile boolean closed;
    /**
     * The proxy's clients, which it keeps anyway: a client costs the gate no set entry and no second listener on
     * its close future, which for thousands of idle clients is memory (a list of listeners each).
     */
    private volatile ClientSockets clients;
    /** The open server sockets; a few per pool, so a set entry and a close listener each are cheap. */
    private final Set<Channel> servers = ConcurrentHashMap.newKeySet();
    /** The server sockets served without a channel, which left {@link #servers} when they joined. */
    private final Set<ConnectionSocket> servedServers = ConcurrentHashMap.newKeySet();
    /** Admin console sessions, never gated; a few at most. */
    private final Set<Channel> ungated = ConcurrentHashMap.newKeySet();

    /** The proxy's client sockets; set once, before the listeners accept. */
    public void clients(ClientSockets sockets) {
        this.clients = sockets;
    }

    /** A new client socket, in its group already, from its pipeline's initializer: gated at once while closed. */
    public void watchClient(Channel channel) {
        if (closed) {
            gate(channel);
        }
    }

    /** A new server socket, from its pipeline's initializer on its event loop: gated at once while closed. */
    public void watchServer(Channel channel) {
        servers.add(channel);
        channel.closeFuture().addListener(closed -> servers.remove(channel));
        if (closed) {
            gate(channel);
        }
    }

    /** An admin console session, on its event loop: read whatever the gate does, what it held handed on now. */
    public void unwatch(Channel channel) {
        ungated.add(channel);
        channel.closeFuture().addListener(closed -> ungated.remove(channel));
        ChannelHandler handler = channel.pipeline().get(NAME);
        if (handler != null) {
            channel.pipeline().remove(handler);
        }
    }

    /**
     * SUSPEND: sockets hold back what they read from now on; a client socket served without a channel stops reading,
     * which holds back the same.
     */
    public void close() {
        closed = true;
        forEachSocket(channel -> channel.eventLoop().execute(() -> gate(channel)));
        ClientSockets sockets = clients;
        if (sockets != null) {
            sockets.suspend(true);
        }
        servedServers.forEach(socket -> socket.pauseReads(ReadPauses.SUSPENDED, true));
    }

    /** RESUME: each socket hands on what it held back, on its own event loop, and reads again. */
    public void open() {
        closed = false;
        forEachSocket(channel -> channel.eventLoop().execute(() -> ungate(channel)));
        ClientSockets sockets = clients;
        if (sockets != null) {
            sockets.suspend(false);
        }
        servedServers.forEach(socket -> socket.pauseReads(ReadPauses.SUSPENDED, false));
    }

    public boolean isClosed() {
        return closed;
    }

    /** A server socket needs no shared address: there are a few per pool. */
    @Override
    public SocketAddress shared(SocketAddress local) {
        return local;
    }

    /** Servers are closed by their pools, never all at once by the gate. */
    @Override
    public boolean closingAll() {
        return false;
    }

    /** A server socket left its channel, which leaves {@link #servers}: its close future never completes now. */
    @Override
    public void handedOver(Channel channel, EpollSocket socket) {
        servedServers.add(socket);
        servers.remove(channel);
        if (closed) {
            socket.pauseReads(ReadPauses.SUSPENDED, true);
        }
    }

    @Override
    public void closed(ConnectionSocket socket) {
        servedServers.remove(socket);
    }

    private void forEachSocket(Consumer<Channel> action) {
        ClientSockets sockets = clients;
        if (sockets != null) {
            sockets.channels().forEach(action);
        }
        servers.forEach(action);
    }

    /** On the socket's loop: the handler goes in unless the gate opened meanwhile or it is there already. */
    private void gate(Channel channel) {
        ChannelPipeline pipeline = channel.pipeline();
        if (!closed || !channel.isOpen() || ungated.contains(channel) || pipeline.get(NAME) != null) {
            return;
        }
        ChannelHandlerContext tls = pipeline.context(SslHandler.class);
        if (tls != null) {
            pipeline.addAfter(tls.name(), NAME, new Handler());
        } else {
            pipeline.addFirst(NAME, new Handler());
        }
    }

    /** On the socket's loop: the handler goes, handing on what it held, unless the gate closed again meanwhile. */
    private void ungate(Channel channel) {
        ChannelHandler handler = channel.pipeline().get(NAME);
        if (!closed && handler != null) {
            channel.pipeline().remove(handler);
        }
    }

    private final class Handler extends ChannelInboundHandlerAdapter {
        /** Touched on the socket's event loop only; made at the first read held back. */
        private ArrayDeque<Object> held;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            // held while the gate is closed, and after it opened until its handler goes, so that order is kept
            if (!closed && isEmpty()) {
                ctx.fireChannelRead(msg);
                return;
            }
            if (held == null) {
                held = new ArrayDeque<>(4);
            }
            held.add(msg);
            ReadPauses.pause(ctx.channel(), ReadPauses.SUSPENDED);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            if (isEmpty()) {
                ctx.fireChannelReadComplete();
            }
        }

        /** Taken out of the pipeline (RESUME, or an admin console session): what it held goes on at once. */
        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            if (isEmpty()) {
                return;
            }
            while (!held.isEmpty()) {
                ctx.fireChannelRead(held.poll());
            }
            ctx.fireChannelReadComplete();
            ReadPauses.resume(ctx.channel(), ReadPauses.SUSPENDED);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            while (!isEmpty()) {
                ReferenceCountUtil.release(held.poll());
            }
            ctx.fireChannelInactive();
        }

        private boolean isEmpty() {
            return held == null || held.isEmpty();
        }
    }
}
