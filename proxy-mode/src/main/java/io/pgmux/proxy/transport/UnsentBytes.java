package io.pgmux.proxy.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.unix.IovArray;
import io.netty.channel.unix.Socket;
import io.netty.util.concurrent.FastThreadLocal;
import java.io.IOException;
import java.util.ArrayDeque;

/**
 * What an {@link EpollSocket} was given to send and its descriptor has not taken yet, in order: direct buffers with
 * addresses, each released once sent. Two or more leave with one writev, as a channel's flush sends them: what one
 * read of the peer brought (a client's BEGIN and its first statement) reaches the other end in one segment, and a
 * backend reads it whole rather than answering the first part alone. On the socket's loop only, but for
 * {@link #bytes()}.
 */
final class UnsentBytes {
    /** The vector a gathered send fills, one per loop, as each of Netty's epoll loops has its own. */
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

    /** The first buffer not all sent; null when nothing waits. */
    private ByteBuf first;
    /** What waits behind {@link #first}; made the first time two buffers wait, and kept. */
    private ArrayDeque<ByteBuf> rest;
    /** Read off the loop too (SHOW SOCKETS), where a value a moment old will do. */
    private int bytes;

    boolean isEmpty() {
        return first == null;
    }

    int bytes() {
        return bytes;
    }

    void add(ByteBuf buffer) {
        if (first == null) {
            first = buffer;
        } else {
            if (rest == null) {
                rest = new ArrayDeque<>(4);
            }
            rest.add(buffer);
        }
        bytes += buffer.readableBytes();
    }

    /** Sends as much as {@code fd} takes; true when everything went. */
    boolean sendTo(Socket fd) throws IOException {
        boolean more = rest == null || rest.isEmpty() || sendGathered(fd);
        while (more && first != null && send(fd, first)) {
            first = rest == null ? null : rest.poll();
        }
        return first == null;
    }

    /**
     * Sends the buffers with one writev: true when all those it held went (those past what one vector holds still
     * wait), false when the socket took no more.
     */
    private boolean sendGathered(Socket fd) throws IOException {
        IovArray vector = VECTORS.get();
        vector.clear();
        vector.add(first, first.readerIndex(), first.readableBytes());
        for (ByteBuf next : rest) {
            if (!vector.add(next, next.readerIndex(), next.readableBytes())) {
                break;
            }
        }
        long wanted = vector.size();
        long sent = fd.writevAddresses(vector.memoryAddress(0), vector.count());
        bytes -= (int) sent;
        for (long left = sent; left > 0; ) {
            int readable = first.readableBytes();
            if (left < readable) {
                first.readerIndex(first.readerIndex() + (int) left);
                break;
            }
            left -= readable;
            first.release();
            first = rest.poll();
        }
        return sent == wanted;
    }

    /** Sends {@code buffer}; true when all of it went, and it is released. */
    private boolean send(Socket fd, ByteBuf buffer) throws IOException {
        int from = buffer.readerIndex();
        int to = buffer.writerIndex();
        int sent = fd.sendAddress(buffer.memoryAddress(), from, to);
        bytes -= sent;
        if (from + sent == to) {
            buffer.release();
            return true;
        }
        buffer.readerIndex(from + sent);
        return false;
    }

    /** Drops what waits: the socket closed, or can send no more. */
    void releaseAll() {
        for (ByteBuf buffer = first; buffer != null; buffer = rest == null ? null : rest.poll()) {
            buffer.release();
        }
        first = null;
        bytes = 0;
    }
}
