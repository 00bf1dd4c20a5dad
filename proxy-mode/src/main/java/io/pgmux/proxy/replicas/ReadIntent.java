package io.pgmux.proxy.replicas;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.pgmux.proxy.protocol.FrontendMessage;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Whether a transaction declares itself read-only before it starts, as read routing needs it to choose a server:
 * its first statement is {@code BEGIN} or {@code START TRANSACTION} with {@code READ ONLY} among its modes (in any
 * case and spacing, beside isolation level and [NOT] DEFERRABLE clauses), or the session's
 * {@code default_transaction_read_only} is on and the transaction does not begin {@code READ WRITE}. Anything this
 * does not read for sure (a comment before the BEGIN, a mode it does not know, a message cut short) is not a
 * declaration: the primary serves it.
 */
public final class ReadIntent {
    private ReadIntent() {
    }

    /**
     * What the first frame of {@code message} (a Query, or the Parse of an extended-protocol batch) declares:
     * {@link Boolean#TRUE} for READ ONLY, {@link Boolean#FALSE} for READ WRITE, null when it says neither.
     */
    public static Boolean declared(FrontendMessage message) {
        byte type = message.type();
        if (type != FrontendMessage.QUERY && type != FrontendMessage.PARSE) {
            return null;
        }
        ByteBuf frames = message.content();
        int at = frames.readerIndex();
        int end = frames.writerIndex();
        if (end - at < FrontendMessage.HEADER_LENGTH) {
            return null;
        }
        end = Math.min(end, at + 1 + frames.getInt(at + 1));
        at += FrontendMessage.HEADER_LENGTH;
        if (type == FrontendMessage.PARSE) {
            // past the statement name
            int nul = frames.indexOf(at, end, (byte) 0);
            if (nul < 0) {
                return null;
            }
            at = nul + 1;
        }
        return declared(new Words(frames, at, end));
    }

    /** As {@link #declared(FrontendMessage)}, of an SQL text. */
    public static Boolean declared(String sql) {
        // zero-terminated, as in a Query: text that stops short of its zero was cut and declares nothing
        byte[] bytes = (sql + "\0").getBytes(StandardCharsets.UTF_8);
        return declared(new Words(Unpooled.wrappedBuffer(bytes), 0, bytes.length));
    }

    /** Whether a {@code default_transaction_read_only} value is on, as PostgreSQL reads a boolean. */
    public static boolean on(String value) {
        if (value == null) {
            return false;
        }
        return switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "on", "true", "yes", "1", "t", "y" -> true;
            default -> false;
        };
    }

    private static Boolean declared(Words words) {
        String first = words.next();
        if ("BEGIN".equals(first)) {
            if (words.peekIs("WORK") || words.peekIs("TRANSACTION")) {
                words.next();
            }
        } else if (!"START".equals(first) || !"TRANSACTION".equals(words.next())) {
            return null;
        }
        Boolean readOnly = null;
        for (;;) {
            words.skipCommas();
            if (words.atStatementEnd()) {
                return readOnly;
            }
            String word = words.next();
            if (word == null) {
                return null;
            }
            switch (word) {
                case "READ" -> {
                    String which = words.next();
                    if ("ONLY".equals(which)) {
                        readOnly = Boolean.TRUE;
                    } else if ("WRITE".equals(which)) {
                        return Boolean.FALSE;
                    } else {
                        return null;
                    }
                }
                case "ISOLATION" -> {
                    if (!"LEVEL".equals(words.next()) || !isolationLevel(words)) {
                        return null;
                    }
                }
                case "NOT" -> {
                    if (!"DEFERRABLE".equals(words.next())) {
                        return null;
                    }
                }
                case "DEFERRABLE" -> {
                }
                default -> {
                    return null;
                }
            }
        }
    }

    private static boolean isolationLevel(Words words) {
        String level = words.next();
        if ("SERIALIZABLE".equals(level)) {
            return true;
        }
        if ("REPEATABLE".equals(level)) {
            return "READ".equals(words.next());
        }
        if ("READ".equals(level)) {
            String which = words.next();
            return "COMMITTED".equals(which) || "UNCOMMITTED".equals(which);
        }
        return false;
    }

    /** The words of a statement's start, upper-cased ASCII letters; null at anything else. */
    private static final class Words {
        private final ByteBuf text;
        private int at;
        private final int end;

        Words(ByteBuf text, int at, int end) {
            this.text = text;
            this.at = at;
            this.end = end;
        }

        private void skipSpace() {
            while (at < end && isSpace(text.getByte(at))) {
                at++;
            }
        }

        void skipCommas() {
            skipSpace();
            while (at < end && text.getByte(at) == ',') {
                at++;
                skipSpace();
            }
        }

        /** The end of the text (its terminating zero), or a semicolon. */
        boolean atStatementEnd() {
            skipSpace();
            if (at >= end) {
                // cut short: the message went on beyond what was read
                return false;
            }
            byte b = text.getByte(at);
            return b == 0 || b == ';';
        }

        boolean peekIs(String word) {
            int saved = at;
            boolean is = word.equals(next());
            at = saved;
            return is;
        }

        String next() {
            skipSpace();
            int start = at;
            StringBuilder word = new StringBuilder(12);
            while (at < end && isLetter(text.getByte(at))) {
                word.append((char) (text.getByte(at) & 0xDF));
                at++;
            }
            if (at == start || at < end && isWordPart(text.getByte(at))) {
                return null;
            }
            return word.toString();
        }

        private static boolean isLetter(byte b) {
            return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z';
        }

        /** A byte that would make the word longer than its letters: a digit, an underscore, a quote, non-ASCII. */
        private static boolean isWordPart(byte b) {
            return b >= '0' && b <= '9' || b == '_' || b == '$' || b == '"' || b < 0;
        }

        private static boolean isSpace(byte b) {
            return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f';
        }
    }
}
