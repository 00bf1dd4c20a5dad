package io.pgmux.proxy.client;

import io.netty.buffer.ByteBuf;
import io.pgmux.proxy.parameters.ClientParameters;
import io.pgmux.proxy.prepared.NamedStatements;
import io.pgmux.proxy.protocol.BackendMessage;
import io.pgmux.proxy.protocol.CommandComplete;
import io.pgmux.proxy.protocol.EncodableMessage;
import io.pgmux.proxy.protocol.EncodedOut;
import io.pgmux.proxy.protocol.ParameterStatus;
import io.pgmux.proxy.replicas.WriteTags;
import io.pgmux.proxy.server.ServerConnection;
import io.pgmux.proxy.transport.ConnectionSocket;
import java.util.Arrays;

/**
 * What the pooler reads in a linked server's responses on their way to the client, which get there as slices of
 * the receive buffer, never copied: ParameterStatus (the client now expects that value), the CommandComplete of
 * SET, RESET and DISCARD ALL (settings to read before the server goes back, in transaction and statement mode),
 * the tags of commands that may create or drop session state (pin_session_state), and, where named statements are
 * renamed and a request of the extended protocol is in flight, each message's place among the requests, so that
 * responses to the pooler's own messages are dropped and its own answers inserted in the server's order.
 */
final class ResponseFilter {
    private static final byte[] SET_TAG = CommandComplete.tag("SET");
    private static final byte[] RESET_TAG = CommandComplete.tag("RESET");
    private static final byte[] DISCARD_ALL_TAG = CommandComplete.tag("DISCARD ALL");
    /** A DO block may SET anything, with EXECUTE or set_config. */
    private static final byte[] DO_TAG = CommandComplete.tag("DO");
    private static final byte[] LOAD_TAG = CommandComplete.tag("LOAD");
    /**
     * Commands that may create or drop state a server keeps across transactions (SELECT is the query text's), by
     * their first byte: a tag is compared with the few that start as it does, most (SELECT, UPDATE, INSERT) with
     * one or none.
     */
    private static final byte[][][] SESSION_STATE_TAGS = byFirstByte("LISTEN", "UNLISTEN", "DECLARE CURSOR",
            "CLOSE CURSOR", "CLOSE CURSOR ALL", "PREPARE", "DEALLOCATE", "DEALLOCATE ALL", "DISCARD ALL",
            "DISCARD TEMP", "CREATE TABLE", "CREATE VIEW", "CREATE SEQUENCE", "CREATE FUNCTION", "DROP TABLE",
            "DROP VIEW", "DROP SEQUENCE", "DROP FUNCTION", "DO");

    private final ConnectionSocket client;
    /** Where the server's bytes are written and flushed: past the client's codec. */
    private final EncodedOut encodedOut;
    private final ClientTraffic traffic;
    private final ClientParameters parameters;
    /** Null unless statements are renamed. */
    private final NamedStatements namedStatements;
    /** Transaction or statement mode: the server goes back between transactions, so SETs must be noticed. */
    private final boolean inspects;
    private final Pinning pinning;
    /** The client ran SET, RESET or DISCARD ALL on its server since the settings were last read. */
    private boolean settingsChanged;
    /** The server answered DISCARD ALL, which also ends the client's LISTENs. */
    private boolean discardedAll;
    /** read_your_writes: the tags of each transaction are read for one that may have written. */
    private final boolean watchesWrites;
    /** A CommandComplete other than {@link WriteTags}' came since the last {@link #takeMayHaveWritten}. */
    private boolean mayHaveWritten;

    ResponseFilter(ConnectionSocket client, ClientTraffic traffic, ClientParameters parameters,
            NamedStatements namedStatements, boolean inspects, Pinning pinning, boolean watchesWrites) {
        this.watchesWrites = watchesWrites;
        this.client = client;
        this.encodedOut = client.encodedOut();
        this.traffic = traffic;
        this.parameters = parameters;
        this.namedStatements = namedStatements;
        this.inspects = inspects;
        this.pinning = pinning;
    }

    /**
     * Notes a SET among the server's messages (one, or a run) and, when statements are renamed, accounts for
     * each with the named statements' pending requests.
     * Writes at once what precedes a message to drop or an answer of the pooler's own that is due, so the
     * client sees everything in the server's order; returns the rest, ending with the last message, or null
     * when nothing is left.
     */
    BackendMessage inspect(BackendMessage message, ServerConnection server) {
        if (!inspects) {
            return message;
        }
        ByteBuf frames = message.content();
        int start = frames.readerIndex();
        int end = frames.writerIndex();
        int from = start;
        int at = start;
        int last = start;
        while (at < end) {
            int next = at + 1 + frames.getInt(at + 1);
            last = at;
            byte type = frames.getByte(at);
            if (type == BackendMessage.COMMAND_COMPLETE) {
                if (changesSettings(frames, at, next)) {
                    settingsChanged = true;
                    if (CommandComplete.hasTag(frames, at + 5, next - at - 5, DISCARD_ALL_TAG)) {
                        discardedAll = true;
                        // as RESET ALL: a startup custom setting reads as empty after it, though the client's session
                        // has it back (the pooler gave it with set_config), and the text says so only when scanned
                        parameters.resetSeen(null);
                    }
                }
                if (pinning.watches()) {
                    noteSessionState(frames, at, next);
                }
                if (watchesWrites && !mayHaveWritten) {
                    mayHaveWritten = WriteTags.mayWrite(frames, at + 5, next - at - 5);
                }
            }
            if (namedStatements == null || !namedStatements.concerns(type)) {
                at = next;
                continue;
            }
            if (!namedStatements.onResponse(frames, at, next - at, server)) {
                writeRelayed(frames, from, at);
                from = next;
                namedStatements.answerDue(client);
            } else if (next < end && namedStatements.answerIsDue()) {
                writeRelayed(frames, from, next);
                from = next;
                namedStatements.answerDue(client);
            }
            at = next;
        }
        if (from == start) {
            return message;
        }
        BackendMessage rest = from == end ? null
                : new BackendMessage(message.type(), frames.retainedSlice(from, end - from), last - from);
        message.release();
        return rest;
    }

    /** SET, RESET, DISCARD ALL and DO change session settings that the server does not report. */
    private static boolean changesSettings(ByteBuf frames, int at, int next) {
        int tagStart = at + 5;
        int tagLength = next - tagStart;
        return CommandComplete.hasTag(frames, tagStart, tagLength, SET_TAG)
                || CommandComplete.hasTag(frames, tagStart, tagLength, RESET_TAG)
                || CommandComplete.hasTag(frames, tagStart, tagLength, DISCARD_ALL_TAG)
                || CommandComplete.hasTag(frames, tagStart, tagLength, DO_TAG);
    }

    private void noteSessionState(ByteBuf frames, int at, int next) {
        int tagStart = at + 5;
        int tagLength = next - tagStart;
        byte first = frames.getByte(tagStart);
        if (first < 0 || SESSION_STATE_TAGS[first] == null) {
            return;
        }
        if (first == 'L' && CommandComplete.hasTag(frames, tagStart, tagLength, LOAD_TAG)) {
            pinning.loaded();
            return;
        }
        for (byte[] tag : SESSION_STATE_TAGS[first]) {
            if (CommandComplete.hasTag(frames, tagStart, tagLength, tag)) {
                pinning.touched();
                return;
            }
        }
    }

    /** The tags as they are on the wire, those starting with each ASCII byte at that index; null for none. */
    private static byte[][][] byFirstByte(String... tags) {
        byte[][][] byFirst = new byte[128][][];
        for (String tag : tags) {
            byte[] onTheWire = CommandComplete.tag(tag);
            byte[][] same = byFirst[onTheWire[0]];
            same = same == null ? new byte[1][] : Arrays.copyOf(same, same.length + 1);
            same[same.length - 1] = onTheWire;
            byFirst[onTheWire[0]] = same;
        }
        return byFirst;
    }

    /**
     * Relays a run, then the pooler's own answers due after it: after a ReadyForQuery, those to a batch the
     * client pipelined behind that Sync.
     */
    void relay(BackendMessage message) {
        if (message.type() == BackendMessage.PARAMETER_STATUS) {
            ParameterStatus status = ParameterStatus.decode(message.body());
            parameters.onParameterStatus(status.name(), status.value());
        }
        traffic.sent(message.content().readableBytes());
        encodedOut.writeEncoded(message.content());
        if (namedStatements != null) {
            namedStatements.answerDue(client);
        }
    }

    /** Relays a NotificationResponse the server sent while the pooler's own query ran on it. */
    void relayNotification(BackendMessage message) {
        traffic.sent(message.content().readableBytes());
        encodedOut.writeAndFlushEncoded(message.content());
    }

    /** Relays a run's messages but its last, which is dropped. */
    void relayAllButLast(BackendMessage message) {
        ByteBuf frames = message.content();
        writeRelayed(frames, frames.readerIndex(), frames.readerIndex() + message.lastOffset());
        message.release();
    }

    /** Writes messages of the pooler's own in the client's stream (a ReadyForQuery held back), then what is due. */
    void relayOwn(EncodableMessage... messages) {
        for (EncodableMessage message : messages) {
            client.write(message);
        }
        if (namedStatements != null) {
            namedStatements.answerDue(client);
        }
    }

    private void writeRelayed(ByteBuf frames, int from, int to) {
        if (to > from) {
            traffic.sent(to - from);
            encodedOut.writeEncoded(frames.retainedSlice(from, to - from));
        }
    }

    /** The server's receive buffer is drained: what was relayed goes out (the codec hops to the client's loop). */
    void flush() {
        encodedOut.flushEncoded();
    }

    /** Whether the client changed settings since the last call. */
    boolean takeDiscardedAll() {
        boolean discarded = discardedAll;
        discardedAll = false;
        return discarded;
    }

    /** A statement that changes settings under another command tag (SELECT set_config(…)) ran. */
    void settingsChanged() {
        settingsChanged = true;
    }

    /** Whether a command that may have written completed since the last call. */
    boolean takeMayHaveWritten() {
        boolean wrote = mayHaveWritten;
        mayHaveWritten = false;
        return wrote;
    }

    boolean takeSettingsChanged() {
        boolean changed = settingsChanged;
        settingsChanged = false;
        return changed;
    }
}
