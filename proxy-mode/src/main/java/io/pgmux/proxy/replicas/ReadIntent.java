package io.pgmux.proxy.replicas;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.pgmux.proxy.protocol.FrontendMessage;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Iterator;
import java.util.Locale;

/**
 * Whether a transaction declares itself read-only before it starts, as read routing needs it to choose a server:
 * its first statement is {@code BEGIN} or {@code START TRANSACTION} with {@code READ ONLY} among its modes (in any
 * case and spacing, beside isolation level and [NOT] DEFERRABLE clauses), or a plain BEGIN whose next statement,
 * sent with it, is {@code SET TRANSACTION} with such modes, or the session's
 * {@code default_transaction_read_only} is on and the transaction does not begin {@code READ WRITE}. Anything this
 * does not read for sure (a comment before the BEGIN, a mode it does not know, a message cut short) is not a
 * declaration: the primary serves it.
 */
public final class ReadIntent {
    private ReadIntent() {
    }

    /**
     * What the transaction that starts with the first of {@code messages} (what the client sent and is pending)
     * declares: {@link Boolean#TRUE} for READ ONLY, {@link Boolean#FALSE} for READ WRITE, null when it says neither.
     * The first frame is a Query or a Parse; after a plain {@code BEGIN}, the transaction's next statement is read
     * too, when the client sent it already (behind a semicolon in the Query, or the next Parse or Query, past the
     * BEGIN's Bind, Describe and Execute, as pgjdbc pipelines them): {@code SET TRANSACTION} with BEGIN's modes.
     */
    public static Boolean declared(Iterable<FrontendMessage> messages) {
        Frames frames = new Frames(messages.iterator());
        Words first = frames.statement();
        return first == null ? null : declared(first, frames);
    }

    /** As {@link #declared(Iterable)}, of an SQL text. */
    public static Boolean declared(String sql) {
        // zero-terminated, as in a Query: text that stops short of its zero was cut and declares nothing
        byte[] bytes = (sql + "\0").getBytes(StandardCharsets.UTF_8);
        return declared(new Words(Unpooled.wrappedBuffer(bytes), 0, bytes.length), null);
    }

    /**
     * Whether the Query text in {@code text} from {@code at} (its terminating zero at {@code end - 1}) is one statement
     * that only opens a transaction block: {@code BEGIN} or {@code START TRANSACTION}, then only words and commas (its
     * modes), then at most semicolons. A comment, a quote, a digit or a second statement says no.
     */
    public static boolean onlyOpensATransaction(ByteBuf text, int at, int end) {
        Words words = new Words(text, at, end);
        String first = words.next();
        if ("START".equals(first)) {
            if (!"TRANSACTION".equals(words.next())) {
                return false;
            }
        } else if (!"BEGIN".equals(first)) {
            return false;
        }
        for (;;) {
            words.skipCommas();
            if (words.atStatementEnd()) {
                return words.onlySemicolonsLeft();
            }
            if (words.next() == null) {
                return false;
            }
        }
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

    /** The statement's declaration; after a plain BEGIN, its next statement's, from {@code frames} if not null. */
    private static Boolean declared(Words words, Frames frames) {
        String first = words.next();
        if ("BEGIN".equals(first)) {
            if (words.peekIs("WORK") || words.peekIs("TRANSACTION")) {
                words.next();
            }
        } else if (!"START".equals(first) || !"TRANSACTION".equals(words.next())) {
            return null;
        }
        if (words.atStatementEnd()) {
            Words next = words.skipSemicolon() ? words : frames != null ? frames.following() : null;
            return next != null && "SET".equals(next.next()) && "TRANSACTION".equals(next.next()) ? modes(next) : null;
        }
        return modes(words);
    }

    /** BEGIN's modes: READ ONLY or READ WRITE among isolation level and [NOT] DEFERRABLE clauses. */
    private static Boolean modes(Words words) {
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

    /** The frames of the pending messages, for the statements they hold. */
    private static final class Frames {
        private Iterator<FrontendMessage> messages;
        private ByteBuf frames;
        private int at;

        Frames(Iterator<FrontendMessage> messages) {
            this.messages = messages;
        }

        /** The next frame's type, {@link #at} on it; 0 when there is none. */
        private byte nextFrame() {
            while (frames == null || at >= frames.writerIndex()) {
                FrontendMessage message = messages.hasNext() ? messages.next() : null;
                if (message == null || message.type() == FrontendMessage.CONTINUATION) {
                    // a streamed message's rest holds no frames to read, nor does what follows it
                    messages = Collections.emptyIterator();
                    return 0;
                }
                frames = message.content();
                at = frames.readerIndex();
            }
            return frames.writerIndex() - at < FrontendMessage.HEADER_LENGTH ? 0 : frames.getByte(at);
        }

        /** The SQL text of the next frame, a Query or a Parse; null when it is neither. */
        Words statement() {
            byte type = nextFrame();
            if (type != FrontendMessage.QUERY && type != FrontendMessage.PARSE) {
                return null;
            }
            int end = Math.min(frames.writerIndex(), at + 1 + frames.getInt(at + 1));
            int text = at + FrontendMessage.HEADER_LENGTH;
            at = end;
            if (type == FrontendMessage.PARSE) {
                // past the statement name
                int nul = frames.indexOf(text, end, (byte) 0);
                if (nul < 0) {
                    return null;
                }
                text = nul + 1;
            }
            return new Words(frames, text, end);
        }

        /** The statement after the one read: the next Query or Parse, past a Bind, Describe and Execute. */
        Words following() {
            for (byte type = nextFrame(); type == FrontendMessage.BIND || type == FrontendMessage.DESCRIBE
                    || type == FrontendMessage.EXECUTE; type = nextFrame()) {
                at += 1 + frames.getInt(at + 1);
            }
            return statement();
        }
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

        /** Past the semicolon that ends a statement, when there is one: the next statement of a Query follows. */
        boolean skipSemicolon() {
            if (at < end && text.getByte(at) == ';') {
                at++;
                return true;
            }
            return false;
        }

        /** At a statement's end: whether nothing but semicolons and spaces comes before the text's zero. */
        boolean onlySemicolonsLeft() {
            while (skipSemicolon()) {
                skipSpace();
            }
            return at < end && text.getByte(at) == 0;
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
