package io.pgmux.proxy.client;

import io.netty.buffer.ByteBuf;
import io.pgmux.proxy.protocol.FrontendMessage;

/**
 * A simple Query that is one {@code LISTEN channel}, {@code UNLISTEN channel} or {@code UNLISTEN *} and nothing
 * else, which the proxy can answer through its {@link ListenerHub} instead of pinning the client to a server.
 * Anything else (several statements, comments, a LISTEN in the extended protocol, a channel name that is not
 * ASCII, whose bytes depend on the client's encoding, or that holds a NUL byte, which makes the message one
 * PostgreSQL refuses as malformed) is left to the client's own server: the hub's connection, shared by every
 * listener of the pool, only ever runs a name read here.
 *
 * @param listen LISTEN rather than UNLISTEN
 * @param channel the channel as the server names it (an unquoted name in lower case); null for {@code UNLISTEN *}
 */
record ListenRequest(boolean listen, String channel) {
    /** PostgreSQL's NAMEDATALEN - 1: a longer name is truncated by the server, with a notice, so it is left to it. */
    private static final int MAX_NAME_BYTES = 63;

    /** What the hub's connection can run for every listener: a name of 1 to 63 ASCII characters without NUL. */
    ListenRequest {
        if (channel != null && (channel.isEmpty() || channel.length() > MAX_NAME_BYTES
                || !channel.chars().allMatch(c -> c > 0 && c < 0x80))) {
            throw new IllegalArgumentException("not a channel name the listener hub can run");
        }
    }

    /** The command tag of the answer. */
    String tag() {
        return listen ? "LISTEN" : "UNLISTEN";
    }

    /** The statement that does the same on the hub's server connection. */
    String sql() {
        return (listen ? "LISTEN " : "UNLISTEN ") + (channel == null ? "*" : quoted(channel));
    }

    static String quoted(String channel) {
        return '"' + channel.replace("\"", "\"\"") + '"';
    }

    /** Reads a Query message's body (the SQL text and its terminating zero byte); null if it is not one of these. */
    static ListenRequest parse(ByteBuf body) {
        return query(body, body.readerIndex(), body.writerIndex());
    }

    /**
     * Reads a Query message where it lies, without a view of its body: an idle client's every Query is asked.
     */
    static ListenRequest parse(FrontendMessage query) {
        ByteBuf frame = query.content();
        return query(frame, frame.readerIndex() + FrontendMessage.HEADER_LENGTH, frame.writerIndex());
    }

    /**
     * Reads a Parse message's body: the unnamed statement, without parameter types, whose text is one of these;
     * else null.
     */
    static ListenRequest parseUnnamed(ByteBuf body) {
        return unnamed(body, body.readerIndex(), body.writerIndex());
    }

    /** Reads a Parse message where it lies, as {@link #parse(FrontendMessage)} a Query. */
    static ListenRequest parseUnnamed(FrontendMessage parse) {
        ByteBuf frame = parse.content();
        int start = frame.readerIndex();
        // the first message's end: a run holds more behind it
        long end = Math.min(frame.writerIndex(), start + 1 + (long) frame.getInt(start + 1));
        return unnamed(frame, start + FrontendMessage.HEADER_LENGTH, (int) end);
    }

    /** The Query body between {@code start} and {@code end}. */
    private static ListenRequest query(ByteBuf in, int start, int end) {
        int zero = end - 1;
        if (zero < start || in.getByte(zero) != 0) {
            return null;
        }
        return parse(in, start, zero);
    }

    /** The Parse body between {@code start} and {@code end}. */
    private static ListenRequest unnamed(ByteBuf in, int start, int end) {
        if (end - start < 4 || in.getByte(start) != 0 || !mayStartListen(in, start + 1, end)) {
            return null;
        }
        int zero = in.indexOf(start + 1, end, (byte) 0);
        if (zero < 0 || zero + 3 != end || in.getShort(zero + 1) != 0) {
            return null;
        }
        return parse(in, start + 1, zero);
    }

    /** The text between {@code at} and {@code end} (its zero byte). */
    private static ListenRequest parse(ByteBuf body, int at, int end) {
        at = skipSpace(body, at, end);
        boolean listen;
        if (matchesWord(body, at, end, "listen")) {
            listen = true;
            at += 6;
        } else if (matchesWord(body, at, end, "unlisten")) {
            listen = false;
            at += 8;
        } else {
            return null;
        }
        int afterKeyword = at;
        at = skipSpace(body, at, end);
        StringBuilder name = new StringBuilder();
        if (at < end && body.getByte(at) == '*' && !listen) {
            at++;
            name = null;
        } else if (at < end && body.getByte(at) == '"') {
            at++;
            while (true) {
                if (at >= end) {
                    return null;
                }
                byte b = body.getByte(at++);
                if (b <= 0) {
                    return null;
                }
                if (b == '"') {
                    if (at < end && body.getByte(at) == '"') {
                        at++;
                    } else {
                        break;
                    }
                }
                name.append((char) (b & 0xFF));
            }
            if (name.length() == 0) {
                return null;
            }
        } else {
            if (at == afterKeyword || at >= end || !startsIdentifier(body.getByte(at))) {
                return null;
            }
            while (at < end && continuesIdentifier(body.getByte(at))) {
                byte b = body.getByte(at++);
                name.append((char) (b >= 'A' && b <= 'Z' ? b + ('a' - 'A') : b & 0xFF));
            }
        }
        at = skipSpace(body, at, end);
        if (at < end && body.getByte(at) == ';') {
            at = skipSpace(body, at + 1, end);
        }
        if (at != end || name != null && name.length() > MAX_NAME_BYTES) {
            return null;
        }
        return new ListenRequest(listen, name == null ? null : name.toString());
    }

    /**
     * Whether the text from {@code at} may begin with LISTEN or UNLISTEN: an idle client's every unnamed Parse is
     * asked, and most are told by their first word, before the end of a long text is looked for.
     */
    private static boolean mayStartListen(ByteBuf body, int at, int end) {
        at = skipSpace(body, at, end);
        int first = at < end ? body.getByte(at) | 0x20 : 0;
        return first == 'l' || first == 'u';
    }

    private static int skipSpace(ByteBuf body, int at, int end) {
        while (at < end) {
            byte b = body.getByte(at);
            if (b != ' ' && b != '\t' && b != '\n' && b != '\r' && b != '\f') {
                break;
            }
            at++;
        }
        return at;
    }

    private static boolean matchesWord(ByteBuf body, int at, int end, String word) {
        if (end - at < word.length()) {
            return false;
        }
        for (int i = 0; i < word.length(); i++) {
            byte b = body.getByte(at + i);
            if ((b >= 'A' && b <= 'Z' ? b + ('a' - 'A') : b) != word.charAt(i)) {
                return false;
            }
        }
        return at + word.length() == end || !continuesIdentifier(body.getByte(at + word.length()));
    }

    /** ASCII letters and underscore (PostgreSQL also takes every non-ASCII byte, which is left to it). */
    private static boolean startsIdentifier(byte b) {
        return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b == '_';
    }

    private static boolean continuesIdentifier(byte b) {
        return startsIdentifier(b) || b >= '0' && b <= '9' || b == '$';
    }
}
