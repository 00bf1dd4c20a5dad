package io.pgmux.proxy.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandler;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.EncoderException;
import io.netty.util.ReferenceCountUtil;
import java.net.SocketAddress;
import java.util.List;

/**
 * A connection's one protocol handler: frames what comes in (a subclass's {@link #decode}) and encodes every
 * {@link EncodableMessage} written to the channel; buffers written directly (relayed bytes) pass through untouched.
 * One handler where a decoder and an encoder would be two, since each handler costs a connection a context of its
 * own (64 B for every idle client) and a hop on every read.
 *
 * <p>The codec also asks for the socket's reads: its channel's autoRead is off for as long as the codec is in its
 * pipeline (from before the channel is active to its end). With autoRead on, Netty asks for the next read at the
 * end of each one from the pipeline's tail, a walk over every handler's context that cost the relay about 8 % of
 * its event loop's user time; the codec asks from its own context, next to the socket, after each read's
 * completion reached the handlers behind it, unless a reason to pause is set ({@code transport.ReadPauses}, which
 * alone changes {@link #readPauses}).
 *
 * <p>The connection behind the codec is a handler behind it in the pipeline, or the codec's own ({@link #serve}): in no
 * pipeline, handed every event the codec would pass on, as a client's connection is, whose handler context would be
 * 64 B more for every idle client.
 */
public abstract class MessageCodec extends ByteToMessageDecoder implements ChannelOutboundHandler {
    /** The reasons the socket does not read now, as {@code ReadPauses} sets them; touched on the channel's loop. */
    private byte readPauses;
    /**
     * Set while the handler behind reads directly ({@link #readBy}) or the codec serves a connection
     * ({@link #serve}); null while what the codec passes on goes through the pipeline.
     */
    private MessageReader reader;
    /** {@link #reader} is the codec's own connection, in no pipeline: every event goes to it. */
    private boolean serving;

    /**
     * Where bytes already encoded (a relayed message) are written and flushed in {@code channel}'s pipeline: past
     * the codec, without the hops from the pipeline's tail and the codec's type check on the way, and to the socket
     * directly where nothing else waits to go out ({@link HeldWrite}); through the channel where it has no codec.
     */
    public static EncodedOut encodedOut(Channel channel) {
        ChannelHandlerContext codec = context(channel);
        return codec != null ? HeldWrite.pastCodec(codec) : EncodedOut.of(channel);
    }

    /** The codec in {@code channel}'s pipeline, or null. */
    public static MessageCodec of(Channel channel) {
        ChannelHandlerContext codec = context(channel);
        return codec == null ? null : (MessageCodec) codec.handler();
    }

    /** The codec's context in {@code channel}'s pipeline, or null: looked for first where it usually is, first. */
    private static ChannelHandlerContext context(Channel channel) {
        ChannelHandlerContext first = channel.pipeline().firstContext();
        if (first != null && first.handler() instanceof MessageCodec) {
            return first;
        }
        return channel.pipeline().context(MessageCodec.class);
    }

    /**
     * From now on, the messages a read holds whole and the end of each read go to {@code next} directly, or again
     * through the pipeline when null. Only the handler right behind the codec may call this, and while it is there:
     * anything put between them would not see those reads.
     */
    public void readBy(MessageReader next) {
        reader = next;
        serving = false;
    }

    /**
     * From now on the codec serves {@code connection}, which is in no pipeline: its messages, the ends of its reads,
     * its activation, writability changes, exceptions and end come from the codec; with null, all of it goes through
     * the pipeline again (to a handler added behind the codec, as the admin console's session).
     */
    public void serve(MessageReader connection) {
        reader = connection;
        serving = connection != null;
    }

    /** The connection the codec serves, or null. */
    private MessageReader served() {
        return serving ? reader : null;
    }

    /**
     * What a subclass's {@code decode} framed goes, in order, to the connection the codec serves, until it serves none
     * (what is left then goes through the pipeline, as with no connection). What the connection's handling of a
     * message throws goes to its exceptionCaught and the framing of the read goes on, as Netty does for a handler
     * behind the codec; thrown out of {@code decode}, it would end the read and leave the messages after it unread
     * until the channel closes.
     */
    protected final void handToServed(ChannelHandlerContext ctx, List<Object> framed) throws Exception {
        while (serving && !framed.isEmpty()) {
            MessageReader own = reader;
            try {
                own.messageRead(framed.remove(0));
            } catch (Throwable failure) {
                own.exceptionCaught(ctx, failure);
            }
        }
    }

    /** What framing outside a pipeline threw goes to the served connection's exceptionCaught, as a channel's would. */
    protected final void failServed(Throwable failure) {
        MessageReader own = served();
        if (own == null) {
            throw new IllegalStateException("framed outside a pipeline with no connection served", failure);
        }
        try {
            own.exceptionCaught(null, failure);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The channel at {@code ctx} gives its socket up ({@code transport.EpollSocket}), and the codec frames
     * outside any pipeline from now on ({@link #frameRead}): returns the bytes it holds of a message not all in yet
     * (null when none), and lets its cumulation go as its removal from the pipeline would. The pipeline is not told:
     * the channel, out of its event loop by now, is dropped whole.
     */
    public ByteBuf leaveChannel(ChannelHandlerContext ctx) throws Exception {
        ByteBuf held = internalBuffer();
        ByteBuf left = held.isReadable() ? ctx.alloc().directBuffer(held.readableBytes()).writeBytes(held) : null;
        handlerRemoved(ctx);
        return left;
    }

    /**
     * Frames {@code in}, bytes a socket outside any pipeline read ({@code transport.EpollSocket}), as a channel's
     * read is framed: its messages go to the connection the codec serves, a read that is one message or run goes
     * whole, and what the connection's handling of one throws, or a protocol violation, goes to its exceptionCaught
     * (after a violation the rest is discarded). {@code fresh}: nothing of an earlier read is in {@code in}.
     *
     * @param out an empty list to frame into, empty again on return
     * @return whether {@code in} went on whole, the connection's from then on; else the bytes left in it (the start
     *         of a message not all in) are the caller's to keep for the next read, and the messages framed hold
     *         retained slices of it
     */
    public abstract boolean frameRead(ByteBuf in, boolean fresh, List<Object> out);

    /**
     * Frames {@code in} outside a pipeline, message by message, each handed to the connection served as it is framed;
     * what its handling throws, or a protocol violation, goes to the connection's exceptionCaught, and what was framed
     * and not handed on is released.
     */
    protected final void frameEach(ByteBuf in, List<Object> out) {
        try {
            while (in.isReadable()) {
                int before = in.readableBytes();
                decode(null, in, out);
                if (in.readableBytes() == before) {
                    break;
                }
            }
        } catch (Throwable failure) {
            for (Object left : out) {
                ReferenceCountUtil.release(left);
            }
            out.clear();
            failServed(failure);
        }
    }

    /**
     * Whether what the peer sent before it hung up is read even while the socket's reads pause, as a channel reads a
     * hung-up peer to its end: a server's last rows and its FATAL are its client's. A client's unread requests are
     * not (false here).
     */
    public boolean readsPastHangUp() {
        return false;
    }

    /** Hands a whole message or run of a read on: to the {@link MessageReader} when there is one. */
    protected final void passOn(ChannelHandlerContext ctx, Object message) {
        MessageReader next = reader;
        if (next != null) {
            next.messageRead(message);
        } else {
            ctx.fireChannelRead(message);
        }
    }

    /** The reasons the socket does not read now (bits of {@code ReadPauses}); 0 while it reads. */
    public int readPauses() {
        return readPauses;
    }

    /** Only {@code ReadPauses}, which also asks for or cancels the read the change calls for. */
    public void readPauses(int reasons) {
        readPauses = (byte) reasons;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        Channel channel = ctx.channel();
        channel.config().setAutoRead(false);
        if (channel.isRegistered() && channel.isActive()) {
            // put in a socket that is open already (an accepted one, from its initializer): the codec asks now
            ctx.read();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        MessageReader own = served();
        if (own != null) {
            own.channelActive(ctx);
        } else {
            ctx.fireChannelActive();
        }
        if (readPauses == 0) {
            ctx.read();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        MessageReader next = reader;
        if (next != null && !internalBuffer().isReadable()) {
            // nothing framed waits for more bytes: the decoder's end of a read (compact what it holds, ask for a read
            // when nothing came of it, which the line below does) has nothing to do
            next.readEnded();
        } else {
            super.channelReadComplete(ctx);
            if (serving && next != null) {
                next.readEnded();
            }
        }
        if (readPauses == 0) {
            askForRead(ctx);
        }
    }

    /**
     * Asks the socket for its next read. Where the codec is the pipeline's first handler (no TLS, no read gate in
     * front of it), the request goes to the socket as the pipeline's head would pass it, without the search for
     * the handler before the codec that {@code ctx.read()} makes at every read (2 % of the relay's loop time).
     */
    private static void askForRead(ChannelHandlerContext ctx) {
        Channel channel = ctx.channel();
        if (channel.pipeline().firstContext() == ctx) {
            channel.unsafe().beginRead();
        } else {
            ctx.read();
        }
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        HeldWrite.sendOn(ctx);
        if (!(msg instanceof EncodableMessage message)) {
            ctx.write(msg, promise);
            return;
        }
        ByteBuf out = ctx.alloc().ioBuffer();
        try {
            message.encode(out);
        } catch (RuntimeException e) {
            out.release();
            throw new EncoderException(e);
        }
        ctx.write(out, promise);
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        HeldWrite.flush(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        HeldWrite.drop(ctx);
        // what the closed input still held reaches the connection first, then its end, which comes even when framing
        // that rest fails, as Netty passes channelInactive on then too
        try {
            super.channelInactive(ctx);
        } finally {
            MessageReader own = served();
            if (own != null) {
                own.channelInactive(ctx);
            }
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        MessageReader own = served();
        if (own != null) {
            own.channelWritabilityChanged(ctx);
        } else {
            ctx.fireChannelWritabilityChanged();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
        MessageReader own = served();
        if (own != null) {
            own.exceptionCaught(ctx, cause);
        } else {
            ctx.fireExceptionCaught(cause);
        }
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) throws Exception {
        HeldWrite.sendOn(ctx);
        super.handlerRemoved0(ctx);
    }

    @Override
    public void read(ChannelHandlerContext ctx) {
        ctx.read();
    }

    @Override
    public void bind(ChannelHandlerContext ctx, SocketAddress localAddress, ChannelPromise promise) {
        ctx.bind(localAddress, promise);
    }

    @Override
    public void connect(ChannelHandlerContext ctx, SocketAddress remoteAddress, SocketAddress localAddress,
            ChannelPromise promise) {
        ctx.connect(remoteAddress, localAddress, promise);
    }

    @Override
    public void disconnect(ChannelHandlerContext ctx, ChannelPromise promise) {
        HeldWrite.sendOn(ctx);
        ctx.disconnect(promise);
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        HeldWrite.sendOn(ctx);
        ctx.close(promise);
    }

    @Override
    public void deregister(ChannelHandlerContext ctx, ChannelPromise promise) {
        HeldWrite.sendOn(ctx);
        ctx.deregister(promise);
    }
}
