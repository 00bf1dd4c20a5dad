package io.pgmux.proxy.client;

import io.pgmux.proxy.protocol.FrontendMessage;
import io.pgmux.proxy.protocol.PoolerError;
import io.pgmux.proxy.protocol.ReadyForQuery;
import io.pgmux.proxy.protocol.ReadyForQuery.TransactionStatus;
import io.pgmux.proxy.transport.ReadBuffers;
import io.pgmux.proxy.transport.ReadPauses;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Consumer;

/**
 * What a client sends while no server is linked to it (it waits for one, or a query of the pooler's own runs on its
 * server): held in order for the server it gets next, with its reads paused once too much waits; and the answer it
 * gets when it cancels the request that waits, which never reached a server. Part of the client's {@link ServerLoan},
 * on its event loop.
 */
final class HeldRequest implements Iterable<FrontendMessage> {
    /**
     * What a client may send while it waits for a server before the proxy stops reading from it: enough for
     * any ordinary request (one Query, or a Parse/Bind/Execute/Sync batch), so that waiting costs no
     * epoll_ctl calls to pause and resume reads, yet a client streaming COPY data cannot pile up memory.
     */
    static final int BYTES_LIMIT = 64 * 1024;

    private final ServerLoan loan;
    /** Sized on first use: most idle clients never wait. */
    private final ArrayDeque<FrontendMessage> messages = new ArrayDeque<>(0);
    private int bytes;
    /**
     * The client's own holder for a message held past the read that brought it in the decoder's reused holder, reused
     * from wait to wait so that a wait costs no holder; made on the first wait. Held messages beyond it get holders of
     * their own ({@link FrontendMessage#keep()}).
     */
    private FrontendMessage own;
    /** {@link #own} holds a message: held, or taken out and not handed back yet ({@link #passedOn}). */
    private boolean ownTaken;
    /** A message was kept by {@link #addLent} since the last {@link #keepLent}. */
    private boolean lent;
    /** A request cancelled while waiting ended before its Sync: the client's messages until that Sync are dropped. */
    private boolean discardingUntilSync;

    HeldRequest(ServerLoan loan) {
        this.loan = loan;
    }

    /** Keeps a message until a server is linked (a holder of its own); stops reading once too much waits. */
    void add(FrontendMessage message) {
        append(kept(message));
    }

    /**
     * Keeps a message for the acquire that follows in the same call, which may link a server at once and forward it:
     * the holder may be the client decoder's, valid during that call only, so {@link #keepLent()} gives the message
     * a holder of its own if it still waits when the acquire returns. A client that finds a server at once thus
     * costs no holder, and one that waits reuses its own.
     */
    void addLent(FrontendMessage message) {
        lent = true;
        append(message);
    }

    /** Every message still held has a holder of its own once this returns (a message's own is kept as it is). */
    void keepLent() {
        if (!lent) {
            return;
        }
        lent = false;
        for (int i = 0, n = messages.size(); i < n; i++) {
            messages.add(kept(messages.poll()));
        }
    }

    /**
     * The message in a holder that outlives the call that passed it: its own, or the client's {@link #own} while that
     * is free, or a new one.
     */
    private FrontendMessage kept(FrontendMessage message) {
        if (message == own) {
            return message;
        }
        FrontendMessage kept;
        if (ownTaken) {
            kept = message.keep();
        } else {
            if (own == null) {
                own = FrontendMessage.ownHolder();
            }
            kept = message.keepIn(own);
            ownTaken = kept == own;
        }
        if (ReadBuffers.holds(kept.content())) {
            // a wait is long: the loop's read buffer stays free for every other socket meanwhile
            kept.detach();
        }
        return kept;
    }

    /**
     * A message taken out ({@link #poll}) was passed on and the call it was passed on in returned, or it was
     * released: when it was in the client's own holder, that holder takes the next message held.
     */
    void passedOn(FrontendMessage message) {
        if (message == own && ownTaken) {
            own.passedOn();
            ownTaken = false;
        }
    }

    private void append(FrontendMessage message) {
        if (message.type() == FrontendMessage.TERMINATE) {
            // the client may close its socket before the proxy gets to its Terminate: it still asked to close
            loan.client.closeRequested();
        }
        messages.add(message);
        bytes += message.content().readableBytes();
        if (bytes > BYTES_LIMIT) {
            loan.socket.pauseReads(ReadPauses.WAITING_FOR_SERVER, true);
        }
    }

    /** The next message held, or null. */
    FrontendMessage peek() {
        return messages.peek();
    }

    /**
     * Takes out the next message held; null when none is. It may be in the client's own holder: valid until it is
     * handed back with {@link #passedOn}, and kept past that with {@link FrontendMessage#keep()}.
     */
    FrontendMessage poll() {
        FrontendMessage message = messages.poll();
        if (message != null) {
            bytes -= message.content().readableBytes();
        }
        return message;
    }

    /**
     * Takes out every message held, in order, and gives each to {@code reader}, which may hold them again: a message
     * in the client's own holder moves to a holder of its own first (a rare path), so that the own holder is never
     * out twice.
     */
    void readAgain(Consumer<FrontendMessage> reader) {
        List<FrontendMessage> all = new ArrayList<>(messages);
        messages.clear();
        bytes = 0;
        int at = all.indexOf(own);
        if (at >= 0) {
            all.set(at, own.keep());
            passedOn(own);
        }
        all.forEach(reader);
    }

    /** The client is gone: nothing held will be sent. */
    void releaseAll() {
        FrontendMessage message;
        while ((message = messages.poll()) != null) {
            message.release();
            passedOn(message);
        }
        bytes = 0;
    }

    /** The server went away before answering: what it was sent is held again, ahead of anything newer. */
    void sendAgain(ResendBuffer kept, long nowNanos) {
        bytes += kept.sendAgain(messages, nowNanos);
    }

    @Override
    public Iterator<FrontendMessage> iterator() {
        return messages.iterator();
    }

    /** Whether the client's messages are dropped until the Sync that ends a request it cancelled. */
    boolean discarding() {
        return discardingUntilSync;
    }

    /** The rest of a batch whose request was cancelled while waiting: dropped, as a server drops it after an error. */
    void discard(FrontendMessage message) {
        byte type = message.type();
        message.release();
        if (type == FrontendMessage.TERMINATE) {
            loan.client.terminate();
        } else if (type == FrontendMessage.SYNC) {
            discardingUntilSync = false;
            loan.queryStartNanos = 0;
            loan.transactionStartNanos = 0;
            loan.filter.relayOwn(ReadyForQuery.IDLE);
            loan.socket.flush();
            loan.client.quiet(TransactionStatus.IDLE, loan.now());
        }
    }

    /**
     * The client cancelled the request that waited for a server: it is answered as PostgreSQL answers a cancelled
     * statement (57014, then ReadyForQuery at the request's end: its Query or FunctionCall, or the Sync of its
     * batch, read now or later), without having reached a server. What the client sent after it stays held.
     */
    void cancelled() {
        FrontendMessage message;
        boolean ended = false;
        while (!ended && (message = messages.poll()) != null) {
            if (message.isRun()) {
                // the request may end inside the run: what follows its end is served as usual
                List<FrontendMessage> split = message.split();
                passedOn(message);
                for (int i = split.size() - 1; i >= 0; i--) {
                    messages.addFirst(split.get(i));
                }
                continue;
            }
            bytes -= message.content().readableBytes();
            ended = message.type() == FrontendMessage.QUERY || message.type() == FrontendMessage.SYNC
                    || message.type() == FrontendMessage.FUNCTION_CALL;
            message.release();
            passedOn(message);
        }
        loan.filter.relayOwn(PoolerError.queryCanceled());
        discardingUntilSync = !ended;
        loan.queryStartNanos = messages.isEmpty() ? 0 : loan.now();
        loan.transactionStartNanos = loan.queryStartNanos;
        if (ended) {
            loan.filter.relayOwn(ReadyForQuery.IDLE);
        }
        loan.socket.flush();
    }
}
