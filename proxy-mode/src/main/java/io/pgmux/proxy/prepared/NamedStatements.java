package io.pgmux.proxy.prepared;

import io.netty.buffer.ByteBuf;
import io.pgmux.core.stats.TrafficStats;
import io.pgmux.proxy.protocol.BackendMessage;
import io.pgmux.proxy.protocol.Bind;
import io.pgmux.proxy.protocol.Close;
import io.pgmux.proxy.protocol.CommandComplete;
import io.pgmux.proxy.protocol.Describe;
import io.pgmux.proxy.protocol.ErrorResponse;
import io.pgmux.proxy.protocol.FrontendMessage;
import io.pgmux.proxy.protocol.Parse;
import io.pgmux.proxy.protocol.PoolerError;
import io.pgmux.proxy.protocol.ProtocolViolationException;
import io.pgmux.proxy.protocol.StatementOrPortal;
import io.pgmux.proxy.transport.ConnectionSocket;
import java.util.HashMap;
import java.util.Map;

/**
 * One client's named prepared statements in transaction and statement mode, where each transaction may run on
 * another server: the client's names map to statements (query text and parameter types), each server holds
 * them under names of its own ({@code PGMUX_n}, see {@link PreparedStatementCache}), and a statement the server
 * lacks is parsed there just before the client's Bind or Describe needs it. Errors are PostgreSQL's own
 * (42P05, 26000) and not fatal. The unnamed statement passes through unchanged. Used on the client's loop only.
 *
 * <p>A client keeps at most {@link #PER_CLIENT_FACTOR} times max_prepared_statements names, so that one client
 * cannot fill the proxy's heap with statements; a Parse of one more fails with a non-fatal 53400 error (as
 * PostgreSQL reports a configuration limit) and the client may go on after closing some. Drivers that cache
 * statements close those they evict (pgjdbc keeps 256 by default), well below the limit.
 */
public final class NamedStatements {
    /** How many times a server's max_prepared_statements one client may keep. */
    public static final int PER_CLIENT_FACTOR = 10;
    /** The longest run whose Binds are renamed as it is copied; a longer one goes a message at a time. */
    static final int RUN_COPY_LIMIT = 8 * 1024;

    /** CommandComplete bodies of the commands that drop every prepared statement of the session. */
    private static final byte[] DEALLOCATE_ALL = CommandComplete.tag("DEALLOCATE ALL");
    private static final byte[] DISCARD_ALL = CommandComplete.tag("DISCARD ALL");

    private final PendingRequests requests = new PendingRequests();
    /** The client's names; a shared empty map until its first named Parse, as most clients never name one. */
    private Map<StatementName, StatementKey> statements = Map.of();
    /** The name of the Bind, Describe or Close being read, to look up with no String made. */
    private final StatementName nameRead = new StatementName();
    private final RenamedRun renamed = new RenamedRun();
    private final PreparedStatementLimit limit;
    private final TrafficStats traffic;
    private StatementServer server;
    private ConnectionSocket client;

    /**
     * @param limit max_prepared_statements, read at each Parse
     * @param traffic the pool's stats, which count the client's Parses and Binds and the servers' Parses
     */
    public NamedStatements(PreparedStatementLimit limit, TrafficStats traffic) {
        this.traffic = traffic;
        this.limit = limit;
    }

    /** Sends one client message to {@code server}, renaming statements and adding Parses where needed. */
    public void forward(FrontendMessage message, StatementServer server, ConnectionSocket client) {
        this.server = server;
        this.client = client;
        try {
            switch (message.type()) {
                case FrontendMessage.PARSE -> onParse(message);
                case FrontendMessage.BIND -> onBind(message);
                case FrontendMessage.DESCRIBE -> onDescribe(message);
                case FrontendMessage.CLOSE -> onClose(message);
                case FrontendMessage.EXECUTE -> send(message, PendingRequests.Kind.EXECUTE);
                case FrontendMessage.SYNC -> send(message, PendingRequests.Kind.SYNC);
                case FrontendMessage.QUERY -> send(message, PendingRequests.Kind.QUERY);
                case FrontendMessage.FUNCTION_CALL -> send(message, PendingRequests.Kind.FUNCTION_CALL);
                default -> server.write(message.content());
            }
        } catch (ProtocolViolationException e) {
            // a malformed Parse, Bind, Describe or Close: decoding failed before the message was passed on
            message.release();
            throw new ProtocolViolationException("failed to parse packet", e.getMessage());
        }
    }

    /**
     * Whether a run (see {@link FrontendMessage#isRun()}) goes through {@link #forwardRun}: each of its messages passes
     * to the server as it is (a Parse of the unnamed statement, a Describe of a portal or of the unnamed statement, an
     * Execute, a Sync) or is a Bind whose statement name is there to read, and a run with a named Bind, which may be
     * copied, is at most {@link #RUN_COPY_LIMIT} long. Any other run goes one tracked message at a time.
     */
    public static boolean relaysInPlace(FrontendMessage run) {
        ByteBuf frames = run.content();
        boolean namedBind = false;
        for (int at = frames.readerIndex(), end = frames.writerIndex(); at < end; ) {
            int next = at + 1 + frames.getInt(at + 1);
            if (frames.getByte(at) == FrontendMessage.BIND) {
                if (!Bind.bindsUnnamedStatement(frames, at, next)) {
                    if (statementNameEnd(frames, at, next) < 0) {
                        return false;
                    }
                    namedBind = true;
                }
            } else if (isTracked(frames, at, next)) {
                return false;
            }
            at = next;
        }
        return !namedBind || frames.readableBytes() <= RUN_COPY_LIMIT;
    }

    /** Whether the message of a run from {@code start} to {@code end} is one this class may change or answer. */
    public static boolean isTracked(ByteBuf frames, int start, int end) {
        return switch (frames.getByte(start)) {
            case FrontendMessage.PARSE -> !Parse.isUnnamed(frames, start, end);
            case FrontendMessage.BIND -> !Bind.bindsUnnamedStatement(frames, start, end);
            case FrontendMessage.DESCRIBE -> Describe.passingThrough(frames, start, end) == null;
            case FrontendMessage.EXECUTE, FrontendMessage.SYNC -> false;
            default -> true;
        };
    }

    /** The NUL that ends the statement name of the Bind from {@code start} to {@code end}; -1 when it has none. */
    private static int statementNameEnd(ByteBuf frames, int start, int end) {
        int nameStart = Bind.statementNameStart(frames, start, end);
        return nameStart < 0 ? -1 : frames.indexOf(nameStart, end, (byte) 0);
    }

    /**
     * Sends a run that {@link #relaysInPlace} with one write, the client's statement names of its Binds replaced by
     * the server's where it lies, with no message split off and no String made; a statement the server lacks is
     * parsed there first. The run's reference goes with it. A run to which the pooler added no message of its own,
     * ending with a Sync and sent while no request was queued, is only counted ({@link PendingRequests#passedThrough}).
     */
    public void forwardRun(FrontendMessage run, StatementServer server, ConnectionSocket client) {
        this.server = server;
        this.client = client;
        ByteBuf frames = run.content();
        renamed.start(frames);
        boolean passesThrough = !requests.queued();
        byte type = 0;
        for (int at = frames.readerIndex(), end = frames.writerIndex(); at < end; ) {
            int next = at + 1 + frames.getInt(at + 1);
            type = frames.getByte(at);
            switch (type) {
                case FrontendMessage.PARSE -> requests.add(PendingRequests.Kind.PARSE);
                case FrontendMessage.BIND -> passesThrough &= !bindInRun(frames, at, next);
                case FrontendMessage.DESCRIBE -> requests.add(Describe.passingThrough(frames, at, next)
                        == StatementOrPortal.PORTAL ? PendingRequests.Kind.DESCRIBE_PORTAL
                        : PendingRequests.Kind.DESCRIBE_STATEMENT);
                case FrontendMessage.EXECUTE -> requests.add(PendingRequests.Kind.EXECUTE);
                default -> requests.add(PendingRequests.Kind.SYNC);
            }
            at = next;
        }
        if (passesThrough && type == FrontendMessage.SYNC) {
            requests.passedThrough();
        }
        renamed.finish(server);
    }

    /**
     * The Bind of a run from {@code start} to {@code end}, renamed when it binds one of the client's statements;
     * returns whether the pooler parsed that statement on the server first (a message of its own in the run).
     */
    private boolean bindInRun(ByteBuf frames, int start, int end) {
        // read by relaysInPlace: both names are terminated
        int nameStart = Bind.statementNameStart(frames, start, end);
        int nameEnd = frames.indexOf(nameStart, end, (byte) 0);
        StatementKey key = nameEnd == nameStart ? null : statementNamed(frames, nameStart, nameEnd);
        boolean parsed = false;
        if (key != null) {
            PreparedStatementCache cache = server.preparedStatements();
            String serverName = cache.get(key);
            if (serverName == null) {
                renamed.sendUpTo(start, server, client.alloc());
                serverName = prepareOnServer(cache, key);
                parsed = true;
            }
            traffic.recordBind();
            renamed.rename(start, nameStart, nameEnd, serverName, client.alloc());
        }
        requests.add(PendingRequests.Kind.BIND);
        return parsed;
    }

    private void send(FrontendMessage message, PendingRequests.Kind kind) {
        requests.add(kind);
        server.write(message.content());
    }

    private void onParse(FrontendMessage message) {
        if (Parse.isUnnamed(message)) {
            send(message, PendingRequests.Kind.PARSE);
            return;
        }
        Parse parse = Parse.decode(message.body());
        String name = parse.statementName();
        if (name.isEmpty()) {
            send(message, PendingRequests.Kind.PARSE);
            return;
        }
        ByteBuf frame = message.content();
        int nameStart = frame.readerIndex() + FrontendMessage.HEADER_LENGTH;
        int nameEnd = frame.indexOf(nameStart, frame.writerIndex(), (byte) 0);
        if (statements.containsKey(nameRead.read(frame, nameStart, nameEnd - nameStart))) {
            message.release();
            raiseOnServer(PoolerError.preparedStatementAlreadyExists(name));
            return;
        }
        int maxPerClient = (int) Math.min(Integer.MAX_VALUE, (long) PER_CLIENT_FACTOR * limit.tracking());
        if (statements.size() >= maxPerClient) {
            message.release();
            raiseOnServer(PoolerError.tooManyPreparedStatements(name, maxPerClient));
            return;
        }
        StatementKey key = new StatementKey(parse);
        if (!(statements instanceof HashMap)) {
            statements = new HashMap<>();
        }
        StatementName clientName = StatementName.copyOf(frame, nameStart, nameEnd - nameStart);
        statements.put(clientName, key);
        traffic.recordClientParse();
        PreparedStatementCache cache = server.preparedStatements();
        if (cache.get(key) != null) {
            message.release();
            requests.answerParse(client, key, clientName);
            return;
        }
        String serverName = addToServer(cache, key);
        requests.addParse(key, clientName);
        server.write(Parse.renameStatement(client.alloc(), message, serverName));
        message.release();
    }

    private void onBind(FrontendMessage message) {
        if (Bind.bindsUnnamedStatement(message)) {
            send(message, PendingRequests.Kind.BIND);
            return;
        }
        ByteBuf frame = message.content();
        int nameStart = Bind.statementNameStart(frame, frame.readerIndex(), frame.writerIndex());
        if (nameStart < 0) {
            throw new ProtocolViolationException("invalid message format: unterminated portal name");
        }
        int nameEnd = frame.indexOf(nameStart, frame.writerIndex(), (byte) 0);
        if (nameEnd < 0) {
            throw new ProtocolViolationException("invalid message format: unterminated statement name");
        }
        StatementKey key = statementNamed(frame, nameStart, nameEnd);
        if (key == null) {
            // the unnamed statement, or an unknown name the server refuses with PostgreSQL's own error
            send(message, PendingRequests.Kind.BIND);
            return;
        }
        String serverName = ensureOnServer(key);
        traffic.recordBind();
        requests.add(PendingRequests.Kind.BIND);
        server.write(Bind.renameStatement(client.alloc(), message, serverName));
        message.release();
    }

    private void onDescribe(FrontendMessage message) {
        StatementOrPortal plain = Describe.passingThrough(message);
        if (plain != null) {
            send(message, plain == StatementOrPortal.PORTAL ? PendingRequests.Kind.DESCRIBE_PORTAL
                    : PendingRequests.Kind.DESCRIBE_STATEMENT);
            return;
        }
        Describe describe = Describe.decode(message.body());
        if (describe.target() == StatementOrPortal.PORTAL) {
            send(message, PendingRequests.Kind.DESCRIBE_PORTAL);
            return;
        }
        // decoded, so well formed: the name follows the target byte and ends with the message
        ByteBuf frame = message.content();
        StatementKey key = statementNamed(frame, frame.readerIndex() + FrontendMessage.HEADER_LENGTH + 1,
                frame.writerIndex() - 1);
        if (key == null) {
            send(message, PendingRequests.Kind.DESCRIBE_STATEMENT);
            return;
        }
        String serverName = ensureOnServer(key);
        message.release();
        requests.add(PendingRequests.Kind.DESCRIBE_STATEMENT);
        server.write(new Describe(StatementOrPortal.STATEMENT, serverName));
    }

    /**
     * The server statement stays for other clients; the client's name goes, and the pooler answers CloseComplete
     * itself: the server never knew the name, which may be longer than PostgreSQL takes in a Close (10,000 bytes)
     * when the client's Parse and Binds reached it renamed. Other names (a portal, or a statement the pooler
     * does not track, such as one made by SQL PREPARE) are the server's to close.
     */
    private void onClose(FrontendMessage message) {
        if (!statements.isEmpty()) {
            Close close = Close.decode(message.body());
            // decoded, so well formed: the name follows the target byte and ends with the message
            ByteBuf frame = message.content();
            int nameStart = frame.readerIndex() + FrontendMessage.HEADER_LENGTH + 1;
            if (close.target() == StatementOrPortal.STATEMENT
                    && statements.remove(nameRead.read(frame, nameStart, frame.writerIndex() - 1 - nameStart)) != null) {
                message.release();
                requests.answerClose(client);
                return;
            }
        }
        send(message, PendingRequests.Kind.CLOSE);
    }

    /** The client's statement named by the bytes from {@code nameStart} to {@code nameEnd}, or null. */
    private StatementKey statementNamed(ByteBuf frames, int nameStart, int nameEnd) {
        return statements.isEmpty() ? null : statements.get(nameRead.read(frames, nameStart, nameEnd - nameStart));
    }

    private String ensureOnServer(StatementKey key) {
        PreparedStatementCache cache = server.preparedStatements();
        String serverName = cache.get(key);
        return serverName != null ? serverName : prepareOnServer(cache, key);
    }

    /** Parses {@code key} on the server, which lacks it; returns its name there. */
    private String prepareOnServer(PreparedStatementCache cache, StatementKey key) {
        String serverName = addToServer(cache, key);
        requests.add(PendingRequests.Kind.PARSE_ADDED, key);
        server.write(key.parseAs(serverName));
        return serverName;
    }

    private String addToServer(PreparedStatementCache cache, StatementKey key) {
        for (String evicted = cache.evictIfFull(); evicted != null; evicted = cache.evictIfFull()) {
            requests.add(PendingRequests.Kind.CLOSE_ADDED);
            server.write(new Close(StatementOrPortal.STATEMENT, evicted));
        }
        traffic.recordServerParse();
        return cache.add(key);
    }

    /**
     * Makes the server raise {@code error} itself, so it lands in order among the batch's responses and the
     * server skips to Sync and rolls back exactly as after an error of its own.
     */
    private void raiseOnServer(ErrorResponse error) {
        // an escape string literal reads alike whatever standard_conforming_strings and backslash_quote the client set
        String message = error.message().replace("\\", "\\\\").replace("'", "''").replace("$", "");
        requests.add(PendingRequests.Kind.PARSE_ADDED);
        server.write(new Parse("", "DO $pgmux$BEGIN RAISE EXCEPTION USING ERRCODE = '" + error.sqlState()
                + "', MESSAGE = E'" + message + "'; END$pgmux$", new int[0]));
        requests.add(PendingRequests.Kind.BIND_ADDED);
        server.write(UnnamedPortal.BIND);
        requests.add(PendingRequests.Kind.EXECUTE);
        server.write(UnnamedPortal.EXECUTE);
    }

    /**
     * Whether a server message of {@code type} is one {@link #onResponse} must see: while no request of the
     * client's is queued (a client that prepares no named statement), only ReadyForQuery and CommandComplete are.
     */
    public boolean concerns(byte type) {
        return requests.queued() || type == BackendMessage.READY_FOR_QUERY || type == BackendMessage.COMMAND_COMPLETE;
    }

    /**
     * Accounts for the server message of {@code length} bytes at {@code at} in {@code frames}; false when it
     * answers a message the pooler added and must be dropped.
     */
    public boolean onResponse(ByteBuf frames, int at, int length, StatementServer server) {
        byte type = frames.getByte(at);
        if (type == BackendMessage.COMMAND_COMPLETE && dropsAllStatements(frames, at + 5, length - 5)) {
            // sent as SQL: the server lost the pooler's statements too, and the client has none left
            server.preparedStatements().clear();
            if (!statements.isEmpty()) {
                statements.clear();
            }
        }
        return requests.onResponse(type, server.preparedStatements(), statements);
    }

    private static boolean dropsAllStatements(ByteBuf frames, int tagStart, int tagLength) {
        return CommandComplete.hasTag(frames, tagStart, tagLength, DEALLOCATE_ALL)
                || CommandComplete.hasTag(frames, tagStart, tagLength, DISCARD_ALL);
    }

    /** Whether an answer of the pooler's own is due before the next server message. */
    public boolean answerIsDue() {
        return requests.answerIsDue();
    }

    /** Writes the pooler's own answers that are due now. */
    public void answerDue(ConnectionSocket client) {
        requests.answerDue(client);
    }

    /** The server connection was released or lost: nothing is pending on it any more. */
    public void serverGone() {
        requests.clear();
        server = null;
        client = null;
    }
}
