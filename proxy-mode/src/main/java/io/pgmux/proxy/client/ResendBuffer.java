package io.pgmux.proxy.client;

import io.netty.buffer.ByteBuf;
import io.pgmux.proxy.protocol.FrontendMessage;
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

    private final int limitBytes;
    /**
     * The messages' content, retained once more: no copy, duplicate or holder is made per message (the one the relay
     * got may be the client decoder's, which it reuses), and one is made again only to send them again.
     */
    private final ArrayDeque<ByteBuf> unanswered = new ArrayDeque<>(4);
    /**
     * Where each kept message's bytes started when it was kept, in order: a write that went out in part moves its
     * reader index, which a second sending puts back.
     */
    private int[] starts = new int[4];
    /** Each kept message's type, in order. */
    private byte[] types = new byte[4];
    /** Whether each kept message is a run, in order. */
    private boolean[] runs = new boolean[4];
    private int unansweredBytes;
    private boolean keeping;
    /** The server linked now sent such a FATAL: its close sends what was kept to another server. */
    private boolean serverGoingAway;
    /** The requests were sent again once already: the next server's failure reaches the client. */
    private boolean sentAgain;

    /** @param limitBytes what may be kept at most: beyond it, nothing is */
    ResendBuffer(int limitBytes) {
        this.limitBytes = limitBytes;
    }

    /** A server was linked: what is forwarded from now on is kept if no transaction is open on it. */
    void linked(boolean idleServer) {
        keeping = !sentAgain && idleServer;
        sentAgain = false;
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
        boolean changes = renamed && message.type() != FrontendMessage.CONTINUATION && changesStatements(content);
        if (changes || unansweredBytes + bytes > limitBytes) {
            forget();
            return;
        }
        int at = unanswered.size();
        if (at == starts.length) {
            starts = Arrays.copyOf(starts, at * 2);
            types = Arrays.copyOf(types, at * 2);
            runs = Arrays.copyOf(runs, at * 2);
        }
        starts[at] = content.readerIndex();
        types[at] = message.type();
        runs[at] = message.isRun();
        unanswered.add(content.retain());
        unansweredBytes += bytes;
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

    /** The server answered, or went: nothing kept is sent again. */
    void forget() {
        keeping = false;
        serverGoingAway = false;
        unansweredBytes = 0;
        ByteBuf kept;
        while ((kept = unanswered.poll()) != null) {
            kept.release();
        }
    }

    /** Moves what was kept ahead of {@code pending}, in its order; returns its bytes. */
    int sendAgain(ArrayDeque<FrontendMessage> pending) {
        int bytes = 0;
        ByteBuf content;
        while ((content = unanswered.pollLast()) != null) {
            int at = unanswered.size();
            content.readerIndex(starts[at]);
            bytes += content.readableBytes();
            FrontendMessage kept = new FrontendMessage(types[at], content, runs[at]);
            if (kept.isRun()) {
                // what waits for a server is read one message at a time
                List<FrontendMessage> messages = kept.split();
                for (int i = messages.size() - 1; i >= 0; i--) {
                    pending.addFirst(messages.get(i));
                }
            } else {
                pending.addFirst(kept);
            }
        }
        forget();
        sentAgain = true;
        return bytes;
    }
}
