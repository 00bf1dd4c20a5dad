package io.pgmux.proxy.prepared;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;

/**
 * A run of a client's messages on its way to a server, the statement names of some of its Binds replaced by the
 * server's: from the first renamed Bind on the run is copied into one buffer (a run renamed here is short, see
 * {@link NamedStatements#relaysInPlace}), so that it leaves with one write and no slice or holder of it is made; a run
 * with nothing renamed leaves as it came. One per client, used for each of its runs in turn.
 */
final class RenamedRun {
    /** Room for server names longer than the clients' before the copy has to grow. */
    private static final int SLACK = 64;

    private ByteBuf frames;
    /** What is copied and not yet sent; null while nothing is. */
    private ByteBuf copy;
    /** The bytes of {@link #frames} before this one are in the copy or sent. */
    private int copiedTo;

    /** The run in {@code frames} (all of its readable bytes) is read from now on. */
    void start(ByteBuf frames) {
        this.frames = frames;
        this.copy = null;
        this.copiedTo = frames.readerIndex();
    }

    /**
     * The Bind at {@code bindStart} goes with its statement name, from {@code nameStart} to the NUL at {@code nameEnd},
     * replaced by {@code serverName} (ASCII, as the pooler names statements).
     */
    void rename(int bindStart, int nameStart, int nameEnd, String serverName, ByteBufAllocator alloc) {
        copyUpTo(nameStart, alloc);
        int bindInCopy = copy.writerIndex() - (nameStart - bindStart);
        copy.writeCharSequence(serverName, StandardCharsets.US_ASCII);
        copy.setInt(bindInCopy + 1, frames.getInt(bindStart + 1) - (nameEnd - nameStart) + serverName.length());
        // the NUL that ends the client's name ends the server's: it is copied with what follows
        copiedTo = nameEnd;
    }

    /** Sends what was read before {@code at}, so that a message the pooler adds goes next. */
    void sendUpTo(int at, StatementServer server, ByteBufAllocator alloc) {
        if (at > copiedTo) {
            copyUpTo(at, alloc);
        }
        if (copy != null) {
            server.write(copy);
            copy = null;
        }
    }

    /** Sends the rest of the run; the run's reference goes with it (or is released when it was copied). */
    void finish(StatementServer server) {
        ByteBuf run = frames;
        if (copy == null) {
            frames = null;
            run.readerIndex(copiedTo);
            server.write(run);
            return;
        }
        try {
            copyUpTo(run.writerIndex(), null);
            server.write(copy);
        } finally {
            frames = null;
            copy = null;
            run.release();
        }
    }

    private void copyUpTo(int at, ByteBufAllocator alloc) {
        int length = at - copiedTo;
        if (copy == null) {
            copy = alloc.buffer(frames.writerIndex() - copiedTo + SLACK);
        }
        copy.ensureWritable(length);
        // read from the run into the copy, not written from it: the adaptive allocator's buffers take another
        // buffer's bytes through a JDK ByteBuffer made for each of them
        frames.getBytes(copiedTo, copy, copy.writerIndex(), length);
        copy.writerIndex(copy.writerIndex() + length);
        copiedTo = at;
    }
}
