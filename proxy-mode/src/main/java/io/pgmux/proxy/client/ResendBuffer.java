package io.pgmux.proxy.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.pgmux.proxy.protocol.FrontendMessage;
import io.pgmux.proxy.replicas.ReadIntent;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;

/**
 * What was forwarded to a server linked outside a transaction, kept while the server has not answered any of it:
 * should the server's first answer be a FATAL saying it is going away, none of it can have taken effect, and it goes
 * to another server instead of failing the client. Made at a client's first link outside session mode (a session
 * keeps what it set on its server: only a new transaction can move to another one).
 */
final class ResendBuffer {
    /** The fifth byte of a message: the first of its body. */
    private static final int BODY = 5;
    /** More than a BEGIN with every transaction mode, spaced out, takes. */
    private static final int LONGEST_BEGIN = 512;
    /**
     * A first message up to this long is copied into {@link #copy} rather than retained: a BEGIN, a short Query, a
     * short extended-protocol run. Retained, it would keep the event loop's read buffer ({@code ReadBuffers}) held
     * until the server's answer.
     */
    private static final int COPIED_AT_MOST = 256;

    private final int limitBytes;
    /**
     * The first message's content (null when nothing is kept): {@link #copy} when it is short, else the content
     * retained once more. No holder is made per message (the one the relay got may be the client decoder's, which it
     * reuses), and one is made again only to send it again. Most waits for an answer keep one message (a Query, or a
     * run of the extended protocol), which lives in this object's own fields: keeping and forgetting it touch nothing
     * else per transaction.
     */
    private ByteBuf first;
    /** A heap buffer of the client's own for a short first message, reused from transaction to transaction. */
    private ByteBuf copy;
    /**
     * Where the first message's bytes started when it was kept: a write that went out in part moves its reader
     * index, which a second sending puts back.
     */
    private int firstStart;
    private byte firstType;
    private boolean firstRun;
    /** The messages kept after the first, in order, as {@link #first}; made at the first such message. */
    private ArrayDeque<ByteBuf> later;
    /** Each later message's start, type and whether it is a run, in order. */
    private int[] starts;
    private byte[] types;
    private boolean[] runs;
    private int unansweredBytes;
    private boolean keeping;
    /** The server linked now sent such a FATAL: its close sends what was kept to another server. */
    private boolean serverGoingAway;
    /**
     * The requests were sent again already: only a server connected before the first one went away may fail them
     * again without a word to the client (a restart kills all of a pool's servers at once, and the pool may lend a
     * second one before it has read that one's FATAL); a newer server's failure reaches the client. Those older
     * servers are finite, so a request that kills every server it reaches is sent again a bounded number of times.
     */
    private boolean sentAgain;
    /** When the first server the requests went to was found gone (the pool's clock), while sent again. */
    private long firstGoneNanos;

    /** @param limitBytes what may be kept at most: beyond it, nothing is */
    ResendBuffer(int limitBytes) {
        this.limitBytes = limitBytes;
    }

    /**
     * A server was linked: what is forwarded from now on is kept if no transaction is open on it, and, when it is
     * sent again, the server was connected before the first one went away.
     *
     * @param connectedAtNanos when the server logged in, on its pool's clock
     */
    void linked(boolean idleServer, long connectedAtNanos) {
        keeping = idleServer && (!sentAgain || connectedAtNanos - firstGoneNanos < 0);
        if (!keeping) {
            sentAgain = false;
        }
    }

    /** The pool handed over no server: a later request is sent again if its server goes away. */
    void acquireFailed() {
        sentAgain = false;
    }

    boolean keeping() {
        return keeping;
    }

    boolean serverGoingAway() {
        return serverGoingAway;
    }

    /** The server's first answer is a FATAL saying it is going away: its close sends the requests again. */
    void goingAway() {
        serverGoingAway = true;
    }

    /**
     * Keeps a message or run forwarded before the server answered anything: not when it holds a named Parse or Close,
     * anywhere in a run, which change the client's statements as they pass (sent twice, the Parse would find its name
     * taken), nor beyond what a client may have waiting for a server.
     *
     * @param renamed statements are renamed: named Parse and Close change the client's statements
     */
    void keep(FrontendMessage message, boolean renamed) {
        ByteBuf content = message.content();
        int bytes = content.readableBytes();
        boolean changes = renamed && mayChangeStatements(message) && changesStatements(content);
        if (changes || unansweredBytes + bytes > limitBytes) {
            answered();
            return;
        }
        if (first == null) {
            if (bytes <= COPIED_AT_MOST) {
                if (copy == null) {
                    copy = Unpooled.buffer(Math.max(bytes, 64), COPIED_AT_MOST);
                }
                first = copy.clear().writeBytes(content, content.readerIndex(), bytes);
            } else {
                first = content.retain();
            }
            firstStart = first.readerIndex();
            firstType = message.type();
            firstRun = message.isRun();
        } else {
            keepLater(message, content);
        }
        unansweredBytes += bytes;
    }

    private void keepLater(FrontendMessage message, ByteBuf content) {
        if (later == null) {
            later = new ArrayDeque<>(4);
            starts = new int[4];
            types = new byte[4];
            runs = new boolean[4];
        }
        int at = later.size();
        if (at == starts.length) {
            starts = Arrays.copyOf(starts, at * 2);
            types = Arrays.copyOf(types, at * 2);
            runs = Arrays.copyOf(runs, at * 2);
        }
        starts[at] = content.readerIndex();
        types[at] = message.type();
        runs[at] = message.isRun();
        later.add(content.retain());
    }

    /**
     * Whether {@code message} may hold a named Parse or Close: a run anywhere, one message only by its type, which
     * leaves the bytes of the common Query, Bind or Execute unread here.
     */
    private static boolean mayChangeStatements(FrontendMessage message) {
        byte type = message.type();
        if (message.isRun()) {
            return type != FrontendMessage.CONTINUATION;
        }
        return type == FrontendMessage.PARSE || type == FrontendMessage.CLOSE;
    }

    /** Whether the whole messages in {@code frames} hold a Parse or a Close of a named statement. */
    private static boolean changesStatements(ByteBuf frames) {
        for (int at = frames.readerIndex(), end = frames.writerIndex(); end - at > BODY; ) {
            int next = Math.min(end, at + 1 + frames.getInt(at + 1));
            if (next > at + BODY + 1 && switch (frames.getByte(at)) {
                case FrontendMessage.PARSE -> frames.getByte(at + BODY) != 0;
                case FrontendMessage.CLOSE -> frames.getByte(at + BODY) == 'S' && frames.getByte(at + BODY + 1) != 0;
                default -> false;
            }) {
                return true;
            }
            at = next;
        }
        return false;
    }

    /**
     * Whether all that is kept is one Query that only opens a transaction block ({@code BEGIN} or {@code START
     * TRANSACTION}, with its modes), as psycopg2, ORMs and pgbench send it alone: if it ran, its one effect went with
     * the server's session, so it may go to another server however that server went, even closed without a word,
     * which leaves unknown whether a request ran. Read as {@link ReadIntent} reads a BEGIN: a second statement, a
     * comment, a quote or a byte of another encoding says no.
     */
    boolean onlyOpensATransaction() {
        if (first == null || firstRun || firstType != FrontendMessage.QUERY || later != null && !later.isEmpty()) {
            return false;
        }
        int length = first.getInt(firstStart + 1);
        if (length > LONGEST_BEGIN || first.writerIndex() < firstStart + 1 + length) {
            return false; // longer than any BEGIN with its modes, or a long Query still arriving in pieces
        }
        return ReadIntent.onlyOpensATransaction(first, firstStart + BODY, firstStart + 1 + length);
    }

    /** The server answered, or what was forwarded cannot be sent again: whatever comes of it reaches the client. */
    void answered() {
        forget();
        sentAgain = false;
    }

    /** The server answered, or went: nothing kept is sent again. */
    void forget() {
        keeping = false;
        serverGoingAway = false;
        unansweredBytes = 0;
        if (first == null) {
            return;
        }
        if (first != copy) {
            first.release();
        }
        first = null;
        if (later != null) {
            ByteBuf kept;
            while ((kept = later.poll()) != null) {
                kept.release();
            }
        }
    }

    /**
     * Moves what was kept ahead of {@code pending}, in its order; returns its bytes.
     *
     * @param nowNanos the time its server was found gone, on the pool's clock
     */
    int sendAgain(ArrayDeque<FrontendMessage> pending, long nowNanos) {
        int bytes = 0;
        if (later != null) {
            ByteBuf content;
            while ((content = later.pollLast()) != null) {
                int at = later.size();
                bytes += sendAgain(pending, content, starts[at], types[at], runs[at]);
            }
        }
        if (first != null) {
            // the copy stays the client's: what is sent again is a buffer of its own, as a read would be
            ByteBuf content = first != copy ? first
                    : ByteBufAllocator.DEFAULT.directBuffer(copy.writerIndex()).writeBytes(copy, 0, copy.writerIndex());
            bytes += sendAgain(pending, content, firstStart, firstType, firstRun);
            first = null;
        }
        forget();
        if (!sentAgain) {
            sentAgain = true;
            firstGoneNanos = nowNanos;
        }
        return bytes;
    }

    /** Puts one kept message, its content handed over, first in {@code pending}; returns its bytes. */
    private static int sendAgain(ArrayDeque<FrontendMessage> pending, ByteBuf content, int start, byte type,
            boolean run) {
        content.readerIndex(start);
        int bytes = content.readableBytes();
        FrontendMessage kept = new FrontendMessage(type, content, run);
        if (kept.isRun()) {
            // what waits for a server is read one message at a time
            List<FrontendMessage> messages = kept.split();
            for (int i = messages.size() - 1; i >= 0; i--) {
                pending.addFirst(messages.get(i));
            }
        } else {
            pending.addFirst(kept);
        }
        return bytes;
    }
}
