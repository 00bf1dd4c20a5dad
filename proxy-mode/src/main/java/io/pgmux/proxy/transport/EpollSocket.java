package io.pgmux.proxy.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEvent;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.AbstractEpollStreamChannel;
import io.netty.channel.epoll.EpollIoEvent;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.unix.FileDescriptor;
import io.netty.channel.unix.IovArray;
import io.netty.channel.unix.Socket;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.internal.PlatformDependent;
import io.pgmux.proxy.protocol.EncodableMessage;
import io.pgmux.proxy.protocol.EncodedOut;
import io.pgmux.proxy.protocol.MessageCodec;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import javax.net.ssl.SSLSession;

/**
 * A logged-in client's or server's plain socket on an epoll event loop, served without a Netty channel: its descriptor
 * is registered on the loop as an {@link EpollIoHandle} of its own, each read is framed by the connection's codec and
 * handed to its connection, and what the pooler writes goes to the descriptor from the loop. A channel's objects
 * (the channel, its pipeline and contexts, config, outbound buffer, promises, receive handle), which the relay
 * touches per read and write and every idle client holds, are gone: with many clients they were the relay's cache
 * misses, and half its CPU time (docs/benchmarks.md).
 *
 * <p>Level-triggered: each ready socket is read once per pass of the loop (up to {@link #MAX_READS} buffers while
 * they come full), and a paused socket is simply not asked for reads. Bytes the socket does not take wait here, in
 * order, and are sent when it is writable again; past {@link #HIGH_WATER} of them the socket reads as unwritable
 * (the relay then stops reading the server), below {@link #LOW_WATER} writable again, as a channel's water marks.
 * Everything but {@link #write}, {@link #flush}, {@link #close} and the pauses, which hop to the loop, runs on it.
 */
public final class EpollSocket implements ConnectionSocket, EpollIoHandle, EncodedOut {
    /** Netty's default write-buffer water marks, which the channels had. */
    static final int HIGH_WATER = 64 * 1024;
    static final int LOW_WATER = 32 * 1024;
    /** Reads of one ready socket in one pass at most, as Netty's maxMessagesPerRead. */
    private static final int MAX_READS = 16;
    /** How large each read's buffer is: the channels' rule. */
    private static final ReceiveSizes SIZES = Transport.RECEIVE_BUFFERS;

    private static final int IN = EpollIoOps.EPOLLIN.value();
    private static final int OUT = EpollIoOps.EPOLLOUT.value();
    private static final int ERR = EpollIoOps.EPOLLERR.value();
    private static final int RDHUP = EpollIoOps.EPOLLRDHUP.value();
    /** EPOLLHUP, which epoll reports unasked; EpollIoOps has no constant for it. */
    private static final int HUP = 0x10;
    private static final int ET = EpollIoOps.EPOLLET.value();

    /** Whether direct buffers have addresses, which the socket reads into and sends from (not without Unsafe). */
    private static final boolean ADDRESSES = PlatformDependent.hasUnsafe();

    /** The vector a gathered send fills, one per loop, as each epoll loop of Netty's has its own. */
    private static final FastThreadLocal<IovArray> VECTORS = new FastThreadLocal<>() {
        @Override
        protected IovArray initialValue() {
            return new IovArray();
        }

        @Override
        protected void onRemoval(IovArray vector) {
            vector.release();
        }
    };

    /** The list framing fills and empties, one per loop: a read is framed whole before the next. */
    private static final FastThreadLocal<List<Object>> FRAMED = new FastThreadLocal<>() {
        @Override
        protected List<Object> initialValue() {
            return new ArrayList<>(4);
        }
    };

    private final Socket fd;
    private final IoEventLoop loop;
    private final MessageCodec decoder;
    private final SocketEvents events;
    /** The set it joined of sockets served without a channel (the clients', the servers'), left at its close. */
    private final ServedSockets sockets;
    private final SocketAddress remote;
    private final SocketAddress local;
    private IoRegistration registration;
    /** The start of a message not all in yet, kept from the reads before; null when none. */
    private ByteBuf cumulation;
    /** The first of what was written and not yet taken by the socket; null when nothing waits. */
    private ByteBuf unsent;
    /** What waits behind {@link #unsent}; made at the first time two buffers wait, and kept. */
    private ArrayDeque<ByteBuf> unsentRest;
    private int unsentBytes;
    /** What waits for the unsent bytes to go out ({@link #whenFlushed}): null, a Runnable or a list of them. */
    private Object flushWaiters;
    /** What waits for the close ({@link #whenClosed}): null, a Runnable or a list of them. */
    private Object closeWaiters;
    private final int peerPid;
    /** The interest registered now. */
    private int interest;
    /** {@link ReadPauses}' reasons set now. */
    private byte pauses;
    /** The read sizing's state ({@link ReceiveSizes#next}). */
    private byte readSize;
    /** Read from the peer's loop too (the relay asks whether its other end takes more). */
    private volatile boolean unwritable;
    private boolean closeWhenFlushed;
    /** A send failed: nothing more is sent, and the socket fails once what its peer sent first is read. */
    private boolean sendFailed;
    /** Read off the loop too ({@link #isOpen}). */
    private volatile boolean closed;

    private EpollSocket(Socket fd, IoEventLoop loop, MessageCodec decoder, SocketEvents events,
            ServedSockets sockets, SocketAddress remote, SocketAddress local, int peerPid) {
        this.fd = fd;
        this.loop = loop;
        this.decoder = decoder;
        this.events = events;
        this.sockets = sockets;
        this.remote = remote;
        this.local = local;
        this.peerPid = peerPid;
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
        if (!ADDRESSES || !(channel instanceof AbstractEpollStreamChannel epoll)
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
                socket = serve((Socket) epoll.fd(), loop, codec, events, sockets, remote, local, peerPid, pauses);
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

    /**
     * On {@code loop}: serves {@code fd}, which no registration of the loop holds any more, from now on, paused for
     * {@code pauses} ({@link ReadPauses}' reasons).
     */
    static EpollSocket serve(Socket fd, IoEventLoop loop, MessageCodec decoder, SocketEvents events,
            ServedSockets sockets, SocketAddress remote, SocketAddress local, int peerPid, int pauses)
            throws Exception {
        EpollSocket socket = new EpollSocket(fd, loop, decoder, events, sockets, remote, local, peerPid);
        socket.pauses = (byte) pauses;
        socket.registration = loop.register(socket).getNow();
        if (socket.registration == null) {
            throw new IOException("the event loop did not take the socket of " + remote);
        }
        try {
            socket.interest();
        } catch (RuntimeException e) {
            socket.registration.cancel();
            throw e;
        }
        return socket;
    }

    /** Frames {@code left}, bytes the channel read before (its own from now on; may be null), as a read. */
    private void frameLeft(ByteBuf left) {
        if (left == null) {
            return;
        }
        if (closed || !left.isReadable()) {
            left.release();
            return;
        }
        frame(left);
        if (!closed) {
            events.readEnded();
        }
    }

    @Override
    public FileDescriptor fd() {
        return fd;
    }

    // ---------------------------------------------------------------- reads

    @Override
    public void handle(IoRegistration registration, IoEvent event) {
        int ops = ((EpollIoEvent) event).ops().value();
        try {
            if ((ops & OUT) != 0 && !closed && !sendFailed) {
                trySend();
            }
            if ((ops & (IN | RDHUP | ERR | HUP)) != 0 && !closed) {
                if (pauses == 0) {
                    read(false);
                } else if ((ops & (RDHUP | ERR | HUP)) != 0) {
                    if (decoder.readsPastHangUp()) {
                        // paused, and a server hung up: what it sent before (its last rows, its FATAL) is read now
                        // and handed on, as a channel reads a hung-up peer to its end, paused or not
                        read(true);
                    } else {
                        // paused, and the client's stream ended: as a channel reads to the end of a hung-up peer
                        // and closes, whatever it held unread is never run
                        close();
                    }
                }
            }
        } catch (Throwable failure) {
            fail(failure);
        }
    }

    /** Reads what is there; {@code toTheEnd}: paused or not, up to the end of a hung-up peer's stream. */
    private void read(boolean toTheEnd) throws IOException {
        int total = 0;
        for (int reads = 0; (toTheEnd || reads < MAX_READS && pauses == 0) && !closed; reads++) {
            ByteBuf buffer = ReadBuffers.take(SIZES.size(readSize));
            int n;
            try {
                n = fd.recvAddress(buffer.memoryAddress(), buffer.writerIndex(), buffer.capacity());
            } catch (IOException e) {
                buffer.release();
                throw e;
            }
            if (n <= 0) {
                buffer.release();
                if (n < 0) {
                    // the end of the peer's stream ends it, as a channel that allows no half-closure
                    if (total > 0) {
                        events.readEnded();
                    }
                    close();
                    return;
                }
                break;
            }
            buffer.writerIndex(n);
            total += n;
            boolean full = n == buffer.capacity();
            if (full) {
                // more may wait: grow before the next read rather than after the loop, as a channel's handle does
                readSize = SIZES.next(readSize, n);
            }
            frame(buffer);
            if (!full && !toTheEnd) {
                break;
            }
        }
        if (total > 0) {
            readSize = SIZES.next(readSize, total);
            if (!closed) {
                events.readEnded();
            }
        }
    }

    /** Frames what was read, after what earlier reads left; keeps what is left of it for the next read. */
    private void frame(ByteBuf read) {
        boolean fresh = cumulation == null;
        ByteBuf in = fresh ? read : ByteToMessageDecoder.MERGE_CUMULATOR.cumulate(ByteBufAllocator.DEFAULT,
                cumulation, read);
        cumulation = null;
        List<Object> out = FRAMED.get();
        if (!out.isEmpty()) {
            // framing from inside framing, which nothing does today: a list of its own rather than a shared one
            out = new ArrayList<>(4);
        }
        if (decoder.frameRead(in, fresh, out)) {
            return;
        }
        if (in.isReadable() && !closed) {
            cumulation = in;
        } else {
            in.release();
        }
    }

    // ---------------------------------------------------------------- writes

    @Override
    public void write(Object message) {
        if (!loop.inEventLoop()) {
            onLoop(() -> write(message), message);
            return;
        }
        if (closed || sendFailed) {
            ReferenceCountUtil.release(message);
            return;
        }
        ByteBuf bytes;
        if (message instanceof ByteBuf buffer) {
            bytes = buffer;
        } else {
            try {
                bytes = ((EncodableMessage) message).encode(ByteBufAllocator.DEFAULT);
            } catch (RuntimeException e) {
                fail(e);
                return;
            }
        }
        if (!bytes.isReadable()) {
            bytes.release();
            return;
        }
        if (!bytes.hasMemoryAddress()) {
            // a heap or composite buffer: the socket takes bytes from an address
            ByteBuf direct = ByteBufAllocator.DEFAULT.directBuffer(bytes.readableBytes());
            direct.writeBytes(bytes);
            bytes.release();
            bytes = direct;
        }
        queue(bytes);
    }

    private void queue(ByteBuf bytes) {
        if (unsent == null) {
            unsent = bytes;
        } else {
            if (unsentRest == null) {
                unsentRest = new ArrayDeque<>(4);
            }
            unsentRest.add(bytes);
        }
        unsentBytes += bytes.readableBytes();
        if (!unwritable && unsentBytes > HIGH_WATER) {
            unwritable = true;
            events.writabilityChanged();
        }
    }

    @Override
    public void writeAndFlush(Object message) {
        if (!loop.inEventLoop()) {
            onLoop(() -> writeAndFlush(message), message);
            return;
        }
        write(message);
        flush();
    }

    @Override
    public void flush() {
        if (!loop.inEventLoop()) {
            onLoop(this::flush, null);
            return;
        }
        if (closed || unsent == null || (interest & OUT) != 0 || sendFailed) {
            // (waiting for the socket to be writable: what is queued goes then)
            return;
        }
        try {
            trySend();
        } catch (Throwable failure) {
            fail(failure);
        }
    }

    /** Sends what is queued; a server's failed send is heard only after what the server sent is read. */
    private void trySend() throws IOException {
        try {
            sendUnsent();
        } catch (IOException failure) {
            if (!decoder.readsPastHangUp()) {
                throw failure;
            }
            sendFailed(failure);
        }
    }

    /**
     * A server that hung up answers the first send after its close with a reset, which fails the next send, while
     * what it sent before the close, its going-away FATAL among it, may still wait to be read. That is read first, out of the
     * send's caller: the FATAL says that nothing sent reached a backend, which a failed send alone does not.
     */
    private void sendFailed(IOException failure) {
        sendFailed = true;
        releaseUnsent();
        Runnable readThenFail = () -> {
            if (closed) {
                return; // closed on purpose meanwhile
            }
            try {
                read(true);
            } catch (IOException unread) {
                // what is left unread is lost with the connection, as the send said
            }
            // before the close's own news, which the read's end of stream may have sent: the send's failure says more
            events.failed(failure);
            close();
        };
        try {
            loop.execute(readThenFail);
        } catch (RejectedExecutionException e) {
            fail(failure);
        }
    }

    /** Sends what is queued, as much as the socket takes; asks to hear when it takes more. */
    private void sendUnsent() throws IOException {
        boolean more = unsentRest == null || unsentRest.isEmpty() || sendGathered();
        while (more && unsent != null && send(unsent)) {
            unsent = unsentRest == null ? null : unsentRest.poll();
        }
        if (unwritable && unsentBytes < LOW_WATER) {
            unwritable = false;
            events.writabilityChanged();
        }
        if (unsent == null) {
            flushed();
        }
        interest();
    }

    /**
     * Sends the buffers queued with one writev, as a channel's flush does: what one read of the peer brought (a
     * client's BEGIN and its first statement) leaves in one segment, and the backend reads it at once, not the first
     * part alone. Returns true when all of them went, else false (the socket took no more) or true with those past
     * what one writev takes still queued.
     */
    private boolean sendGathered() throws IOException {
        IovArray vector = VECTORS.get();
        vector.clear();
        vector.add(unsent, unsent.readerIndex(), unsent.readableBytes());
        for (ByteBuf next : unsentRest) {
            if (!vector.add(next, next.readerIndex(), next.readableBytes())) {
                break;
            }
        }
        long wanted = vector.size();
        long sent = fd.writevAddresses(vector.memoryAddress(0), vector.count());
        unsentBytes -= (int) sent;
        for (long left = sent; left > 0; ) {
            int readable = unsent.readableBytes();
            if (left < readable) {
                unsent.readerIndex(unsent.readerIndex() + (int) left);
                break;
            }
            left -= readable;
            unsent.release();
            unsent = unsentRest.poll();
        }
        return sent == wanted;
    }

    /** Sends {@code bytes}; true when all went, and they are released. */
    private boolean send(ByteBuf bytes) throws IOException {
        int from = bytes.readerIndex();
        int to = bytes.writerIndex();
        int sent = fd.sendAddress(bytes.memoryAddress(), from, to);
        unsentBytes -= sent;
        if (from + sent == to) {
            bytes.release();
            return true;
        }
        bytes.readerIndex(from + sent);
        return false;
    }

    /** Everything written went out: what waited for that runs, and a close asked for after it happens. */
    private void flushed() {
        Object waiting = flushWaiters;
        flushWaiters = null;
        runAll(waiting);
        if (closeWhenFlushed) {
            close();
        }
    }

    /** Relayed bytes are written as any: the socket holds them until the flush and sends them from there. */
    @Override
    public EncodedOut encodedOut() {
        return this;
    }

    @Override
    public void writeEncoded(ByteBuf bytes) {
        write(bytes);
    }

    @Override
    public void flushEncoded() {
        flush();
    }

    @Override
    public void whenFlushed(Runnable done) {
        if (!loop.inEventLoop()) {
            onLoop(() -> whenFlushed(done), null);
            return;
        }
        if (closed || unsent == null) {
            done.run();
        } else {
            flushWaiters = add(flushWaiters, done);
            flush();
        }
    }

    @Override
    public void whenClosed(Runnable done) {
        if (!loop.inEventLoop()) {
            onLoop(() -> whenClosed(done), null);
            return;
        }
        if (closed) {
            done.run();
        } else {
            closeWaiters = add(closeWaiters, done);
        }
    }

    // ---------------------------------------------------------------- pauses

    @Override
    public void pauseReads(int reason, boolean paused) {
        if (!loop.inEventLoop()) {
            onLoop(() -> pauseReads(reason, paused), null);
            return;
        }
        int now = paused ? pauses | reason : pauses & ~reason;
        if (now != pauses) {
            pauses = (byte) now;
            try {
                interest();
            } catch (RuntimeException e) {
                fail(e);
            }
        }
    }

    /** Runs {@code task} on the loop; once the loop has shut down, it releases {@code message} instead, if any. */
    private void onLoop(Runnable task, Object message) {
        try {
            loop.execute(task);
        } catch (RejectedExecutionException e) {
            ReferenceCountUtil.release(message);
        }
    }

    @Override
    public boolean isReading() {
        return pauses == 0;
    }

    @Override
    public void resumeReads(int reasons) {
        if ((pauses & reasons) != 0) {
            pauseReads(reasons, false);
        }
    }

    /**
     * Reading: level-triggered, readable or hung up. Paused: edge-triggered, so that a client's end of its stream is
     * told once rather than at every pass (it is read once reads resume), and an error or a hang-up of both
     * directions closes. Netty's registration takes no empty interest: that would take the socket off the loop.
     */
    private void interest() {
        if (closed) {
            return;
        }
        int wanted = (pauses == 0 ? IN | RDHUP : RDHUP | ET) | (unsent != null ? OUT : 0);
        if (wanted != interest) {
            interest = wanted;
            registration.submit(EpollIoOps.valueOf(wanted));
        }
    }

    // ---------------------------------------------------------------- the end

    @Override
    public void close() {
        if (!loop.inEventLoop()) {
            onLoop(this::close, null);
            return;
        }
        if (closed) {
            return;
        }
        closed = true;
        if (registration != null) {
            registration.cancel();
        }
        try {
            fd.close();
        } catch (IOException e) {
            // closed all the same
        }
        releaseUnsent();
        if (cumulation != null) {
            cumulation.release();
            cumulation = null;
        }
        Object waiting = flushWaiters;
        flushWaiters = null;
        Object closing = closeWaiters;
        closeWaiters = null;
        // as a channel's channelInactive, after whatever runs now
        Runnable ended = () -> {
            runAll(waiting);
            events.closed();
            sockets.closed(this);
            runAll(closing);
        };
        try {
            loop.execute(ended);
        } catch (RejectedExecutionException e) {
            // the loop shuts down and closes its sockets: the connection hears of it now
            ended.run();
        }
    }

    @Override
    public void closeAfter(Object message) {
        if (!loop.inEventLoop()) {
            onLoop(() -> closeAfter(message), message);
            return;
        }
        write(message);
        closeWhenFlushed = true;
        if (unsent == null) {
            close();
        } else {
            flush();
        }
    }

    private void fail(Throwable failure) {
        if (closed) {
            return;
        }
        events.failed(failure);
        close();
    }

    private void releaseUnsent() {
        for (ByteBuf bytes = unsent; bytes != null; bytes = unsentRest == null ? null : unsentRest.poll()) {
            bytes.release();
        }
        unsent = null;
        unsentBytes = 0;
    }

    @SuppressWarnings("unchecked")
    private static Object add(Object waiters, Runnable done) {
        if (waiters == null) {
            return done;
        }
        List<Runnable> list;
        if (waiters instanceof Runnable one) {
            list = new ArrayList<>(2);
            list.add(one);
        } else {
            list = (List<Runnable>) waiters;
        }
        list.add(done);
        return list;
    }

    @SuppressWarnings("unchecked")
    private static void runAll(Object waiters) {
        if (waiters instanceof Runnable one) {
            one.run();
        } else if (waiters != null) {
            ((List<Runnable>) waiters).forEach(Runnable::run);
        }
    }

    // ---------------------------------------------------------------- what the socket is

    @Override
    public EventLoop eventLoop() {
        return loop;
    }

    @Override
    public SocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public SocketAddress localAddress() {
        return local;
    }

    @Override
    public int descriptor() {
        return closed ? -1 : fd.intValue();
    }

    @Override
    public long pendingWriteBytes() {
        return unsentBytes;
    }

    @Override
    public SSLSession tlsSession() {
        return null;
    }

    @Override
    public int peerPid() {
        return peerPid;
    }

    @Override
    public ByteBufAllocator alloc() {
        return ByteBufAllocator.DEFAULT;
    }

    @Override
    public boolean isOpen() {
        return !closed;
    }

    @Override
    public boolean isWritable() {
        return !unwritable;
    }

    @Override
    public String toString() {
        return "socket " + remote + " (fd " + fd.intValue() + ")";
    }
}
