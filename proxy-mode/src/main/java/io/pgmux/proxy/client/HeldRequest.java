package io.pgmux.proxy.client;

import io.pgmux.proxy.protocol.FrontendMessage;
import io.pgmux.proxy.protocol.PoolerError;
import io.pgmux.proxy.protocol.ReadyForQuery;
import io.pgmux.proxy.protocol.ReadyForQuery.TransactionStatus;
import io.pgmux.proxy.transport.ReadPauses;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

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
    /** A message was kept by {@link #addLent} since the last {@link #keepLent}. */
    private boolean lent;
    /** A request cancelled while waiting ended before its Sync: the client's messages until that Sync are dropped. */
    private boolean discardingUntilSync;

    HeldRequest(ServerLoan loan) {
        this.loan = loan;
    }

    /** Keeps a message until a server is linked (a holder of its own); stops reading once too much waits. */
    void add(FrontendMessage message) {
        append(message.keep());
    }

    /**
     * Keeps a message for the acquire that follows in the same call, which may link a server at once and forward it:
     * the holder may be the client decoder's, valid during that call only, so {@link #keepLent()} gives the message
     * a holder of its own if it still waits when the acquire returns. A client that finds a server at once thus
     * costs no holder.
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
            messages.add(messages.poll().keep());
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
            ReadPauses.pause(loan.channel, ReadPauses.WAITING_FOR_SERVER);
        }
    }

    /** The next message held, or null. */
    FrontendMessage peek() {
        return messages.peek();
    }

    /** Takes out the next message held; null when none is. */
    FrontendMessage poll() {
        FrontendMessage message = messages.poll();
        if (message != null) {
            bytes -= message.content().readableBytes();
        }
        return message;
    }

    /** Takes out every message held, in order. */
    List<FrontendMessage> takeAll() {
        List<FrontendMessage> all = new ArrayList<>(messages);
        messages.clear();
        bytes = 0;
        return all;
    }

    /** The client is gone: nothing held will be sent. */
    void releaseAll() {
        RelayFlow.releaseAll(messages);
        bytes = 0;
    }

    /** The server went away before answering: what it was sent is held again, ahead of anything newer. */
    void sendAgain(ResendBuffer kept) {
        bytes += kept.sendAgain(messages);
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
            loan.channel.flush();
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
                for (int i = split.size() - 1; i >= 0; i--) {
                    messages.addFirst(split.get(i));
                }
                continue;
            }
            bytes -= message.content().readableBytes();
            ended = message.type() == FrontendMessage.QUERY || message.type() == FrontendMessage.SYNC
                    || message.type() == FrontendMessage.FUNCTION_CALL;
            message.release();
        }
        loan.filter.relayOwn(PoolerError.queryCanceled());
        discardingUntilSync = !ended;
        loan.queryStartNanos = messages.isEmpty() ? 0 : loan.now();
        loan.transactionStartNanos = loan.queryStartNanos;
        if (ended) {
            loan.filter.relayOwn(ReadyForQuery.IDLE);
        }
        loan.channel.flush();
    }
}
