package io.pgmux.proxy.transport;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * SUSPEND's stop of reading, shared by every client and server socket of a proxy: while closed, what a socket has
 * read is held back from the rest of its pipeline and the socket stops reading (PgBouncer stops listening for data
 * on its sockets), until {@link #open()} hands the held bytes on in order and reading goes on. One handler per
 * socket, first in its pipeline (behind an SslHandler added for an SSLRequest); an admin console session takes its own out, so that RESUME can be read.
 */
public final class ReadGate {
    /** The handler's name in a pipeline. */
    public static final String NAME = "read-gate";

    private volatile boolean closed;
    /** The sockets holding bytes back now. */
    private final Set<Handler> holding = ConcurrentHashMap.newKeySet();

    /** A handler for one new socket. */
    public ChannelHandler newHandler() {
        return new Handler();
    }

    /** SUSPEND: sockets hold back what they read from now on. */
    public void close() {
        closed = true;
    }

    /** RESUME: each socket hands on what it held back, on its own event loop, and reads again. */
    public void open() {
        closed = false;
        for (Handler handler : holding) {
            handler.releaseLater();
        }
    }

    public boolean isClosed() {
        return closed;
    }

    private final class Handler extends ChannelInboundHandlerAdapter {
        /** Touched on the socket's event loop only; made at the first read held back (most sockets never hold one). */
        private ArrayDeque<Object> held;
        private ChannelHandlerContext ctx;

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!closed && isEmpty()) {
                ctx.fireChannelRead(msg);
                return;
            }
            if (held == null) {
                held = new ArrayDeque<>(4);
            }
            held.add(msg);
            holding.add(this);
            ReadPauses.pause(ctx.channel(), ReadPauses.SUSPENDED);
            if (!closed) {
                // RESUME came between the check and holding.add: it may have missed this socket
                releaseLater();
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            if (isEmpty()) {
                ctx.fireChannelReadComplete();
            }
        }

        /** Taken out of the pipeline (an admin console session): what it held goes on at once. */
        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            release(true);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            discard();
            ctx.fireChannelInactive();
        }

        void releaseLater() {
            ctx.executor().execute(() -> release(false));
        }

        private void release(boolean evenIfClosed) {
            if (closed && !evenIfClosed || isEmpty()) {
                return;
            }
            while (!held.isEmpty()) {
                ctx.fireChannelRead(held.poll());
            }
            holding.remove(this);
            ctx.fireChannelReadComplete();
            ReadPauses.resume(ctx.channel(), ReadPauses.SUSPENDED);
        }

        private boolean isEmpty() {
            return held == null || held.isEmpty();
        }

        private void discard() {
            while (!isEmpty()) {
                ReferenceCountUtil.release(held.poll());
            }
            holding.remove(this);
        }
    }
}
