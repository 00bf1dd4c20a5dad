package io.pgmux.proxy.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEvent;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.EpollIoEvent;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.unix.FileDescriptor;
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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
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
    static final boolean ADDRESSES = PlatformDependent.hasUnsafe();

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
    /** What was written and not yet taken by the socket. */
    private final UnsentBytes unsent = new UnsentBytes();
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
    void frameLeft(ByteBuf left) {
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
        unsent.add(bytes);
        if (!unwritable && unsent.bytes() > HIGH_WATER) {
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
        if (closed || unsent.isEmpty() || (interest & OUT) != 0 || sendFailed) {
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
     * what it sent before the close, its going-away FATAL among it, may still wait to be read. That is read first,
     * out of the send's caller: the FATAL says that nothing sent reached a backend, which a failed send alone does
     * not.
     */
    private void sendFailed(IOException failure) {
        sendFailed = true;
        unsent.releaseAll();
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
        boolean all = unsent.sendTo(fd);
        if (unwritable && unsent.bytes() < LOW_WATER) {
            unwritable = false;
            events.writabilityChanged();
        }
        if (all) {
            flushed();
        }
        interest();
    }

    /** Everything written went out: what waited for that runs, and a close asked for after it happens. */
    private void flushed() {
        Object waiting = flushWaiters;
        flushWaiters = null;
        Callbacks.runAll(waiting);
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
        if (closed || unsent.isEmpty()) {
            done.run();
        } else {
            flushWaiters = Callbacks.add(flushWaiters, done);
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
            closeWaiters = Callbacks.add(closeWaiters, done);
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
        int wanted = (pauses == 0 ? IN | RDHUP : RDHUP | ET) | (!unsent.isEmpty() ? OUT : 0);
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
        unsent.releaseAll();
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
            Callbacks.runAll(waiting);
            events.closed();
            sockets.closed(this);
            Callbacks.runAll(closing);
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
        if (unsent.isEmpty()) {
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
        return unsent.bytes();
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
