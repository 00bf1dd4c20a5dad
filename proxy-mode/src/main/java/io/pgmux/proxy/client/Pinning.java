package io.pgmux.proxy.client;

import io.netty.buffer.ByteBuf;
import io.netty.util.ByteProcessor;
import io.netty.util.concurrent.FastThreadLocal;
import io.pgmux.core.pool.PinReason;
import io.pgmux.core.pool.Pool;
import io.pgmux.proxy.config.PinSessionState;
import io.pgmux.proxy.parameters.EightBytes;
import io.pgmux.proxy.parameters.PoolerPrelude;
import io.pgmux.proxy.protocol.EncodableMessage;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client's session state in transaction and statement mode (pin_session_state): cheap triggers while the
 * transaction runs (command tags the response filter sees, words in the query text), then, at the transaction's
 * end and only after a trigger, one query of the pooler's own ({@link #CHECK_QUERY}) that tells what the session
 * really holds. While it holds anything, the client keeps its server. Runs on the client's event loop.
 */
final class Pinning {
    private static final Logger log = LoggerFactory.getLogger(Pinning.class);
    private static final long LOWER_T = EightBytes.each('t');
    private static final long LOWER_E = EightBytes.each('e');
    private static final long LOWER_M = EightBytes.each('m');
    private static final long LOWER_P = EightBytes.each('p');
    private static final long LOWER_S = EightBytes.each('s');
    private static final long LOWER_O = EightBytes.each('o');
    private static final long LOWER_R = EightBytes.each('r');
    private static final long LOWER_Y = EightBytes.each('y');

    /**
     * The session state a server holds outside a transaction, one boolean per {@link PinReason} before LOAD, in
     * their order. Advisory locks still held once the transaction ended are session-level ones.
     */
    private static final String CHECK_QUERY = "SELECT"
            + " EXISTS (SELECT FROM pg_catalog.pg_listening_channels()),"
            + " EXISTS (SELECT FROM pg_catalog.pg_locks WHERE locktype = 'advisory'"
            + " AND pid = pg_catalog.pg_backend_pid()),"
            + " EXISTS (SELECT FROM pg_catalog.pg_class WHERE relnamespace = pg_catalog.pg_my_temp_schema())"
            + " OR EXISTS (SELECT FROM pg_catalog.pg_proc WHERE pronamespace = pg_catalog.pg_my_temp_schema()),"
            + " EXISTS (SELECT FROM pg_catalog.pg_cursors WHERE is_holdable),"
            + " EXISTS (SELECT FROM pg_catalog.pg_prepared_statements WHERE from_sql)";

    /** The check of the session state, after the pooler's prelude, whose rows {@link #found} reads. */
    static EncodableMessage checkQuery(int majorVersion) {
        return PoolerPrelude.before(CHECK_QUERY, majorVersion);
    }

    /**
     * The scanner of {@link #mentionsSessionState}, one per event loop rather than one per client: it holds nothing
     * between two calls, each of which runs to its end on the client's loop.
     */
    private static final FastThreadLocal<SessionStateText> TEXT = new FastThreadLocal<>() {
        @Override
        protected SessionStateText initialValue() {
            return new SessionStateText();
        }
    };

    private final PinSessionState mode;
    /** Transaction or statement mode with pin_session_state on or error. */
    private final boolean watches;
    private final PinCounts counts;
    /** Whose metrics count the pins. */
    private final Pool<?> pool;
    private final SocketAddress client;
    /** A trigger fired since the last check. */
    private boolean touched;
    /** LOAD ran: the library stays in the backend whatever the client does next. */
    private boolean loaded;
    /** A setting of unknown name may be set: only this client's session may have it. */
    private boolean unknownSetting;
    /** Bit mask of the {@link PinReason}s the server holds for this client. */
    private int held;
    private boolean logged;
    /** The client is gone: its reasons no longer count. */
    private boolean gone;

    Pinning(PinSessionState mode, boolean transactionPooled, PinCounts counts, Pool<?> pool, SocketAddress client) {
        this.mode = mode;
        this.watches = transactionPooled && mode != PinSessionState.OFF;
        this.counts = counts;
        this.pool = pool;
        this.client = client;
    }

    boolean watches() {
        return watches;
    }

    /** A command tag or query text that may create or drop session state. */
    void touched() {
        touched = true;
    }

    void loaded() {
        loaded = true;
        touched = true;
    }

    /** A statement set a setting whose name its text does not show: the client keeps its server from now on. */
    void unknownSetting() {
        if (watches) {
            unknownSetting = true;
            touched = true;
        }
    }

    /** Whether a trigger fired since the last call. */
    boolean takeTouched() {
        boolean was = touched;
        touched = false;
        return was;
    }

    /** pin_session_state = error and a trigger fired: the transaction's ReadyForQuery waits for the check. */
    boolean refusesPending() {
        return touched && mode == PinSessionState.ERROR;
    }

    boolean refuses() {
        return mode == PinSessionState.ERROR;
    }

    boolean isPinned() {
        return held != 0;
    }

    boolean isLoaded() {
        return loaded;
    }

    /**
     * The state the check found (a mask of {@link PinReason}s), with LOAD when it ran; {@code rows} are the
     * {@link io.pgmux.proxy.parameters.PoolerPrelude}'s row, then the check's.
     */
    int found(List<String[]> rows) {
        int found = (loaded ? PinReason.LOAD.bit() : 0) | (unknownSetting ? PinReason.UNKNOWN_SETTING.bit() : 0);
        if (rows.size() == 2) {
            String[] row = rows.get(1);
            for (int i = 0; i < row.length && i < PinReason.LOAD.ordinal(); i++) {
                if ("t".equals(row[i])) {
                    found |= PinReason.values()[i].bit();
                }
            }
        }
        return found;
    }

    /** The client now keeps its server for {@code found} (none: it is transaction-pooled again). */
    void hold(int found) {
        if (!gone) {
            counts.changed(held, found);
            if (held == 0 && found != 0) {
                pool.clientPinned(names(found, PinReason::name).toArray(new String[0]));
            } else if (held != 0 && found == 0) {
                pool.clientUnpinned();
            }
        }
        if (found != 0 && !logged) {
            logged = true;
            log.info("client {} pinned to its server: {}", client, String.join(", ", names(found, PinReason::toString)));
        }
        held = found;
    }

    /** The client disconnected: its reasons stop counting; what it held still decides how its server ends. */
    void clientGone() {
        if (!gone) {
            gone = true;
            counts.changed(held, 0);
            if (held != 0) {
                pool.clientUnpinned();
            }
        }
    }

    /** pin_session_state = error's refusal: {@code LISTEN is not supported in transaction pooling mode (…)}. */
    static String refusal(int found, String poolMode) {
        List<String> features = names(found, PinReason::feature);
        String named = String.join(", ", features);
        return named + (features.size() == 1 && !named.endsWith("s") ? " is" : " are")
                + " not supported in " + poolMode + " pooling mode (pin_session_state = error)";
    }

    /** The reasons in {@code mask}, each as {@code name} gives it: for the log, the metrics or the refusal. */
    private static List<String> names(int mask, Function<PinReason, String> name) {
        List<String> names = new ArrayList<>();
        for (PinReason reason : PinReason.values()) {
            if ((mask & reason.bit()) != 0) {
                names.add(name.apply(reason));
            }
        }
        return names;
    }

    /**
     * Whether a Query or Parse message names a session-level advisory lock function ({@code pg_advisory_lock},
     * {@code pg_try_advisory_lock_shared}, {@code pg_advisory_unlock_all}, … but not the {@code _xact_} ones,
     * which end with the transaction) or a temporary object ({@code TEMP}, {@code TEMPORARY}, {@code pg_temp} as a
     * word: {@code CREATE TEMP TABLE … AS} and {@code SELECT … INTO TEMP} are tagged SELECT). One pass over the
     * bytes, no allocation; a false positive costs one check query.
     */
    boolean mentionsSessionState(ByteBuf message) {
        return mentionsSessionState(message, message.readerIndex(), message.readableBytes());
    }

    /** The same for the {@code length} bytes of a message at {@code start} in {@code frames}. */
    boolean mentionsSessionState(ByteBuf frames, int start, int length) {
        SessionStateText text = TEXT.get();
        text.reset();
        return frames.forEachByte(start, length, text) >= 0 || text.endsOnAWord();
    }

    /** The same, read from {@code copy}, which holds those bytes from its start ({@link MessageText}) unless null. */
    boolean mentionsSessionState(ByteBuf frames, int start, int length, byte[] copy) {
        if (copy == null) {
            return mentionsSessionState(frames, start, length);
        }
        if (!mayMention(copy, length)) {
            return false;
        }
        SessionStateText text = TEXT.get();
        text.reset();
        for (int i = 0; i < length; i++) {
            if (!text.process(copy[i])) {
                return true;
            }
        }
        return text.endsOnAWord();
    }

    /**
     * Whether the text holds {@code temp} or {@code advisory} in any case, which every trigger does: most texts hold
     * neither. Looks at eight positions at a time for the end of {@code temp} or {@code sory}, from four overlapping
     * longs (the bytes at each position and the three before it, lower-cased: a byte OR 0x20 is the lower case of a
     * letter, and only its two cases give it); only the eight that hold one are looked at byte by byte.
     */
    static boolean mayMention(byte[] text, int length) {
        int i = 3;
        for (; i + Long.BYTES <= length; i += Long.BYTES) {
            long last = EightBytes.lowerAt(text, i);
            long third = EightBytes.lowerAt(text, i - 1);
            long second = EightBytes.lowerAt(text, i - 2);
            long first = EightBytes.lowerAt(text, i - 3);
            long temp = (first ^ LOWER_T) | (second ^ LOWER_E) | (third ^ LOWER_M) | (last ^ LOWER_P);
            long sory = (first ^ LOWER_S) | (second ^ LOWER_O) | (third ^ LOWER_R) | (last ^ LOWER_Y);
            boolean either = (EightBytes.zeroBytes(temp) | EightBytes.zeroBytes(sory)) != 0;
            if (either && endsAMention(text, i, i + Long.BYTES)) {
                return true;
            }
        }
        return endsAMention(text, i, length);
    }

    /** Whether {@code temp} or {@code advisory}, in any case, ends at a byte from {@code from} to {@code to}. */
    private static boolean endsAMention(byte[] text, int from, int to) {
        for (int i = Math.max(from, 3); i < to; i++) {
            int b = text[i] | 0x20;
            if (b == 'p' && (text[i - 1] | 0x20) == 'm' && (text[i - 2] | 0x20) == 'e' && (text[i - 3] | 0x20) == 't'
                    || b == 'y' && i >= 7 && (text[i - 1] | 0x20) == 'r' && (text[i - 2] | 0x20) == 'o'
                            && (text[i - 3] | 0x20) == 's' && (text[i - 4] | 0x20) == 'i' && (text[i - 5] | 0x20) == 'v'
                            && (text[i - 6] | 0x20) == 'd' && (text[i - 7] | 0x20) == 'a') {
                return true;
            }
        }
        return false;
    }

    /**
     * Finds the words of {@link #mentionsSessionState} byte by byte, keeping the last eight bytes (lower case) in
     * a long; stops at the first. Given to {@link ByteBuf#forEachByte}, so the buffer is walked in one call.
     */
    private static final class SessionStateText implements ByteProcessor {
        private static final long ADVISORY = word("advisory");
        private static final long TEM = word("tem");
        private static final byte[] XACT = bytes("xact_");
        private static final byte[] ORARY = bytes("orary");

        private long window;
        /** Checking what follows {@code advisory_} against {@link #XACT}: how far, or -1. */
        private int xactAt = -1;
        /** Checking what follows a word-start {@code temp}: how far into {@link #ORARY}, or -1. */
        private int oraryAt = -1;

        void reset() {
            window = 0;
            xactAt = -1;
            oraryAt = -1;
        }

        /** Returns false, stopping the walk, at the byte that completes a trigger. */
        @Override
        public boolean process(byte value) {
            byte b = lower(value);
            if (xactAt >= 0) {
                if (b != XACT[xactAt]) {
                    return false;
                }
                if (++xactAt == XACT.length) {
                    xactAt = -1;
                }
            }
            if (oraryAt >= 0) {
                if (oraryAt == 0 && !isLetter(b)) {
                    return false;
                }
                if (b != ORARY[oraryAt]) {
                    oraryAt = -1;
                } else if (++oraryAt == ORARY.length) {
                    return false;
                }
            }
            if (b == '_' && window == ADVISORY) {
                xactAt = 0;
            } else if (b == 'p' && (window & 0xFFFFFF) == TEM && !isLetter((byte) (window >>> 24))) {
                oraryAt = 0;
            }
            window = window << 8 | (b & 0xFF);
            return true;
        }

        /** The text ended right after {@code advisory_} or a word {@code temp}. */
        boolean endsOnAWord() {
            return xactAt == 0 || oraryAt == 0;
        }

        private static long word(String text) {
            long w = 0;
            for (byte b : bytes(text)) {
                w = w << 8 | b;
            }
            return w;
        }
    }

    private static byte lower(byte b) {
        return b >= 'A' && b <= 'Z' ? (byte) (b + ('a' - 'A')) : b;
    }

    private static boolean isLetter(byte b) {
        byte l = lower(b);
        return l >= 'a' && l <= 'z';
    }

    private static byte[] bytes(String word) {
        return word.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }
}
