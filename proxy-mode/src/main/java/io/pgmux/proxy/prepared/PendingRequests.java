package io.pgmux.proxy.prepared;

import io.pgmux.proxy.protocol.BackendMessage;
import io.pgmux.proxy.protocol.CloseComplete;
import io.pgmux.proxy.protocol.ParseComplete;
import io.pgmux.proxy.transport.ConnectionSocket;
import java.util.ArrayDeque;
import java.util.Map;

/**
 * The requests sent to the linked server whose responses have not all arrived, in order, so that the responses
 * to messages the pooler added (a Parse before a Bind on a server that lacks the statement, the Close of an
 * evicted statement) are swallowed, and the answers it gives itself (ParseComplete for a statement the server
 * has already, CloseComplete for a client's name) reach the client exactly where the server would have put them.
 *
 * <p>Requests that only a ReadyForQuery completes and that nothing else concerns (a Query, a FunctionCall or a Sync
 * sent while nothing else is queued, or a whole batch up to its Sync to which the pooler added no message of its
 * own) are only counted, ahead of the queue: while nothing is queued ({@link #queued()}), no server message but
 * ReadyForQuery concerns this class. A client that prepares no named statement, or whose statements are on its
 * server already, queues nothing.
 */
final class PendingRequests {

    enum Kind {
        /** A client Parse, sent under the server's name. */
        PARSE,
        /** A Parse the pooler added: its ParseComplete is not the client's. */
        PARSE_ADDED,
        /** A client Parse of a statement the server has: the pooler answers ParseComplete. */
        PARSE_ANSWERED,
        /** A client Close of one of its names: the pooler answers CloseComplete, the server never sees the name. */
        CLOSE_ANSWERED,
        BIND,
        /** A Bind the pooler added (to raise an error the server's way): its BindComplete is not the client's. */
        BIND_ADDED,
        DESCRIBE_STATEMENT,
        DESCRIBE_PORTAL,
        EXECUTE,
        CLOSE,
        /** The Close of an evicted statement. */
        CLOSE_ADDED,
        SYNC,
        QUERY,
        FUNCTION_CALL
    }

    /**
     * One request; a Parse carries its statement's key, to forget it on the server if the Parse fails, and a
     * client's Parse (sent or answered) the client's name for it, which a failed or skipped Parse does not create.
     */
    record Request(Kind kind, StatementKey key, StatementName clientName) {
    }

    private static final Request[] PLAIN = new Request[Kind.values().length];

    static {
        for (Kind kind : Kind.values()) {
            PLAIN[kind.ordinal()] = new Request(kind, null, null);
        }
    }

    /** Sized on first use rather than 16 slots up front, for the clients that stay idle. */
    private final ArrayDeque<Request> queue = new ArrayDeque<>(0);
    /**
     * Requests ahead of {@link #queue} that end with a ReadyForQuery each and ask nothing else: as a queue of QUERY
     * entries, the server's messages before each ReadyForQuery, errors included, leave them be.
     */
    private int readyAhead;

    void add(Kind kind) {
        if (queue.isEmpty() && endsWithReady(kind)) {
            readyAhead++;
        } else {
            queue.add(PLAIN[kind.ordinal()]);
        }
    }

    private static boolean endsWithReady(Kind kind) {
        return kind == Kind.QUERY || kind == Kind.SYNC || kind == Kind.FUNCTION_CALL;
    }

    /**
     * Everything queued is of whole batches, each up to its Sync, to which the pooler added no message of its own
     * and whose answers are all the server's (their Binds may be renamed): each counts as one request a
     * ReadyForQuery ends. An error in one skips to its Sync, and none holds a Parse whose failure the pooler must
     * note: which of its messages a response answers matters to nothing behind it.
     */
    void passedThrough() {
        Request request;
        while ((request = queue.poll()) != null) {
            if (request.kind() == Kind.SYNC) {
                readyAhead++;
            }
        }
    }

    void add(Kind kind, StatementKey key) {
        queue.add(key == null ? PLAIN[kind.ordinal()] : new Request(kind, key, null));
    }

    /** A client's Parse of {@code key} as {@code clientName}, sent to the server. */
    void addParse(StatementKey key, StatementName clientName) {
        queue.add(new Request(Kind.PARSE, key, clientName));
    }

    /** A ParseComplete of the pooler's own: at once when nothing is in flight, else in its place. */
    void answerParse(ConnectionSocket client, StatementKey key, StatementName clientName) {
        if (isEmpty()) {
            client.write(ParseComplete.INSTANCE);
        } else {
            queue.add(new Request(Kind.PARSE_ANSWERED, key, clientName));
        }
    }

    /** A CloseComplete of the pooler's own: at once when nothing is in flight, else in its place. */
    void answerClose(ConnectionSocket client) {
        if (isEmpty()) {
            client.write(CloseComplete.INSTANCE);
        } else {
            queue.add(PLAIN[Kind.CLOSE_ANSWERED.ordinal()]);
        }
    }

    @Override
    public String toString() {
        return readyAhead + " ready ahead, then " + queue.stream().map(r -> r.kind().name()).toList();
    }

    boolean isEmpty() {
        return readyAhead == 0 && queue.isEmpty();
    }

    /** Whether a request is queued: while none is, no server message concerns this class but ReadyForQuery. */
    boolean queued() {
        return !queue.isEmpty();
    }

    void clear() {
        queue.clear();
        readyAhead = 0;
    }

    /**
     * Accounts for one server message; returns whether it goes to the client. Answers of the pooler's own that
     * are due after it are written after the caller relays it, by {@link #answerDue(Channel)}.
     */
    boolean onResponse(byte type, PreparedStatementCache statements, Map<StatementName, StatementKey> clientNames) {
        if (readyAhead > 0) {
            if (type == BackendMessage.READY_FOR_QUERY) {
                readyAhead--;
            }
            return true;
        }
        Request head = queue.peek();
        if (head == null) {
            return true;
        }
        if (type == BackendMessage.ERROR_RESPONSE) {
            onError(head, statements, clientNames);
            return true;
        }
        if (!completes(head.kind(), type)) {
            return true;
        }
        queue.poll();
        return head.kind() != Kind.PARSE_ADDED && head.kind() != Kind.BIND_ADDED && head.kind() != Kind.CLOSE_ADDED;
    }

    boolean answerIsDue() {
        Request head = queue.peek();
        return readyAhead == 0 && head != null && isAnswered(head.kind());
    }

    private static boolean isAnswered(Kind kind) {
        return kind == Kind.PARSE_ANSWERED || kind == Kind.CLOSE_ANSWERED;
    }

    /** Writes the pooler's own answers now at the head of the queue. */
    void answerDue(ConnectionSocket client) {
        if (readyAhead > 0 || queue.isEmpty()) {
            // most calls, one per relayed answer: the queue's array is not read
            return;
        }
        Request head;
        while ((head = queue.peek()) != null && isAnswered(head.kind())) {
            queue.poll();
            client.write(head.kind() == Kind.PARSE_ANSWERED ? ParseComplete.INSTANCE : CloseComplete.INSTANCE);
        }
    }

    /**
     * After an ErrorResponse the server skips everything up to Sync: those requests get no response, and the
     * statements their Parses would have created do not exist, on the server or under the client's names. In a
     * simple Query the error is one of its results.
     */
    private void onError(Request head, PreparedStatementCache statements, Map<StatementName, StatementKey> clientNames) {
        Kind kind = head.kind();
        if (kind == Kind.SYNC || kind == Kind.QUERY || kind == Kind.FUNCTION_CALL) {
            return;
        }
        Request skipped;
        while ((skipped = queue.peek()) != null && skipped.kind() != Kind.SYNC) {
            queue.poll();
            if (skipped.key() != null && skipped.kind() != Kind.PARSE_ANSWERED) {
                statements.remove(skipped.key());
            }
            if (skipped.clientName() != null) {
                clientNames.remove(skipped.clientName(), skipped.key());
            }
        }
    }

    private static boolean completes(Kind kind, byte type) {
        return switch (kind) {
            case PARSE, PARSE_ADDED -> type == BackendMessage.PARSE_COMPLETE;
            case BIND, BIND_ADDED -> type == BackendMessage.BIND_COMPLETE;
            case DESCRIBE_STATEMENT, DESCRIBE_PORTAL ->
                    type == BackendMessage.ROW_DESCRIPTION || type == BackendMessage.NO_DATA;
            case EXECUTE -> type == BackendMessage.COMMAND_COMPLETE || type == BackendMessage.EMPTY_QUERY_RESPONSE
                    || type == BackendMessage.PORTAL_SUSPENDED;
            case CLOSE, CLOSE_ADDED -> type == BackendMessage.CLOSE_COMPLETE;
            case SYNC, QUERY, FUNCTION_CALL -> type == BackendMessage.READY_FOR_QUERY;
            case PARSE_ANSWERED, CLOSE_ANSWERED -> false;
        };
    }
}
