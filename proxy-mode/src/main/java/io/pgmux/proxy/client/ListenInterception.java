package io.pgmux.proxy.client;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.util.ReferenceCountUtil;
import io.pgmux.proxy.protocol.BindComplete;
import io.pgmux.proxy.protocol.CommandComplete;
import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.protocol.FrontendMessage;
import io.pgmux.proxy.protocol.NoData;
import io.pgmux.proxy.protocol.NoticeResponse;
import io.pgmux.proxy.protocol.ParameterDescription;
import io.pgmux.proxy.protocol.ParseComplete;
import io.pgmux.proxy.protocol.ReadyForQuery;
import io.pgmux.proxy.protocol.SqlState;
import java.util.ArrayDeque;

/**
 * A client's LISTEN and UNLISTEN answered by its pool's {@link ListenerHub} instead of a server, and the
 * notifications the hub hands it, kept until the client is between transactions. Made at the client's first LISTEN:
 * a client that never listens has none.
 */
final class ListenInterception {
    private final Link link;
    private final ListenerHub hub;
    /** The client listens through the hub, or did: it leaves it when it goes. */
    private boolean listener;
    /**
     * The extended-protocol LISTEN being read (Parse, Bind, Describe, Execute, Sync of the unnamed statement), kept
     * for a server if the batch turns out to be anything else; null otherwise.
     */
    private ArrayDeque<FrontendMessage> batch;
    /** The Describe in {@link #batch}: 'S', 'P' or 0 for none. */
    private byte batchDescribe;
    /** Notifications (and warnings that some were lost) waiting for the client to have no server. */
    private ArrayDeque<Object> notifications;

    ListenInterception(Link link, ListenerHub hub) {
        this.link = link;
        this.hub = hub;
    }

    /** Whether the hub may answer the batch that {@code message} begins: the Parse of a LISTEN or UNLISTEN. */
    static boolean startsBatch(FrontendMessage message) {
        return message.type() == FrontendMessage.PARSE && ListenRequest.parseUnnamed(message) != null;
    }

    /** What the hub can answer instead of a server: a Query that is one LISTEN or UNLISTEN; else null. */
    static ListenRequest request(FrontendMessage message) {
        return message.type() == FrontendMessage.QUERY ? ListenRequest.parse(message) : null;
    }

    /** Answers a LISTEN or UNLISTEN outside a transaction through the hub; what the client sends meanwhile waits. */
    void listen(ListenRequest request) {
        listener = true;
        link.traffic.queryStarted(link.now());
        if (!request.listen()) {
            hub.unlisten(this, request.channel());
            listened(request, null, null);
            return;
        }
        link.to(ServerLoan.State.LISTENING);
        EventLoop loop = link.socket.eventLoop();
        hub.listen(this, request.channel(), (error, failure) -> loop.execute(() -> listened(request, error, failure)));
    }

    private void listened(ListenRequest request, ErrorResponse error, Throwable failure) {
        link.to(ServerLoan.State.IDLE);
        ArrayDeque<FrontendMessage> answered = batch;
        batch = null;
        if (answered != null) {
            answered.forEach(FrontendMessage::release);
        }
        if (link.state == ServerLoan.State.CLOSED) {
            return;
        }
        if (failure != null) {
            link.client.failAcquire(failure);
            return;
        }
        ResponseFilter filter = link.filter;
        if (answered != null) {
            // what the server answers to Parse, Bind, Describe and Execute of a statement without rows
            filter.relayOwn(ParseComplete.INSTANCE, BindComplete.INSTANCE);
            if (batchDescribe == 'S') {
                filter.relayOwn(ParameterDescription.NONE);
            }
            if (batchDescribe != 0) {
                filter.relayOwn(NoData.INSTANCE);
            }
        }
        filter.relayOwn(error != null ? ErrorResponse.error(error.sqlState(), error.message())
                : new CommandComplete(request.tag()), ReadyForQuery.IDLE);
        link.traffic.readyForQuery(link.now(), true, true);
        link.socket.flush();
        link.resumeUnlinked();
    }

    /** The Parse of a LISTEN: the rest of its batch is awaited. */
    void startBatch(FrontendMessage parse) {
        link.to(ServerLoan.State.LISTEN_BATCH);
        batch = new ArrayDeque<>(5);
        batch.add(parse.keep());
        batchDescribe = 0;
    }

    /**
     * The next message of a batch that began with the Parse of a LISTEN: the batch is answered by the hub when it
     * is exactly Parse, Bind, an optional Describe, Execute and Sync of the unnamed statement and portal (as pgjdbc
     * and libpq send a statement without parameters); anything else sends it all to a server.
     */
    void continueBatch(FrontendMessage message) {
        byte last = batch.peekLast().type();
        ByteBuf body = message.body();
        int at = body.readerIndex();
        boolean fits = switch (message.type()) {
            case FrontendMessage.BIND -> last == FrontendMessage.PARSE && body.readableBytes() >= 2
                    && body.getByte(at) == 0 && body.getByte(at + 1) == 0;
            case FrontendMessage.DESCRIBE -> last == FrontendMessage.BIND && body.readableBytes() == 2
                    && (body.getByte(at) == 'P' || body.getByte(at) == 'S') && body.getByte(at + 1) == 0;
            case FrontendMessage.EXECUTE -> (last == FrontendMessage.BIND || last == FrontendMessage.DESCRIBE)
                    && body.readableBytes() == 5 && body.getByte(at) == 0;
            case FrontendMessage.SYNC -> last == FrontendMessage.EXECUTE;
            default -> false;
        };
        if (!fits) {
            link.to(ServerLoan.State.IDLE);
            ArrayDeque<FrontendMessage> held = batch;
            batch = null;
            held.forEach(link::hold);
            if (message.type() == FrontendMessage.TERMINATE) {
                message.release();
                link.socket.close();
                return;
            }
            link.hold(message);
            link.acquire();
            return;
        }
        if (message.type() == FrontendMessage.DESCRIBE) {
            batchDescribe = body.getByte(at);
        }
        batch.add(message.keep());
        if (message.type() == FrontendMessage.SYNC) {
            listen(ListenRequest.parseUnnamed(batch.peekFirst()));
        }
    }

    /** The server went back: a DISCARD ALL the client ran there also ended what it listened to. */
    void serverGone() {
        if (listener && link.filter.takeDiscardedAll()) {
            hub.unlisten(this, null);
        }
    }

    /** A notification for the client, from the hub's loop; ownership moves here. */
    void notification(ByteBuf frame) {
        link.socket.eventLoop().execute(() -> deliverOrKeep(frame));
    }

    /** The hub's server connection was lost: notifications sent meanwhile were not received. */
    void notificationsLost() {
        link.socket.eventLoop().execute(() -> deliverOrKeep(NoticeResponse.warning(SqlState.CONNECTION_FAILURE,
                "the pooler lost the server connection that listens for this client; notifications sent until it"
                        + " listened again on a new one were lost")));
    }

    /** Writes now if the client is between transactions, else keeps it until it is. */
    private void deliverOrKeep(Object notification) {
        if (link.state == ServerLoan.State.CLOSED) {
            ReferenceCountUtil.release(notification);
        } else if (link.betweenTransactions() && (notifications == null || notifications.isEmpty())) {
            write(notification);
        } else {
            if (notifications == null) {
                notifications = new ArrayDeque<>();
            }
            notifications.add(notification);
        }
    }

    /** The client is between transactions: what was kept goes out. */
    void deliverKept() {
        if (notifications == null) {
            return;
        }
        Object notification;
        while (link.betweenTransactions() && (notification = notifications.poll()) != null) {
            write(notification);
        }
    }

    private void write(Object notification) {
        if (notification instanceof ByteBuf frame) {
            link.traffic.sent(frame.readableBytes());
        }
        link.socket.writeAndFlush(notification);
    }

    /** The client is gone: it leaves the hub, and nothing kept for it remains. */
    void clientClosed(boolean batchRead) {
        if (listener) {
            hub.unlisten(this, null);
        }
        Object notification;
        while (notifications != null && (notification = notifications.poll()) != null) {
            ReferenceCountUtil.release(notification);
        }
        if (batch != null && batchRead) {
            batch.forEach(FrontendMessage::release);
            batch = null;
        }
    }
}
