package io.pgmux.jdbc.sql;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import io.pgmux.core.pool.PinReason;
import java.util.Objects;
import java.util.function.Function;

/**
 * Decides, from SQL text alone, whether a statement leaves session state behind that pins the
 * logical connection to its server connection, and whether it is transaction control. Results are
 * cached per SQL text, so the cost on the hot path is one array read for a text seen recently, else one
 * cache lookup. Thread-safe.
 *
 * <h2>What pins</h2>
 * <ul>
 *   <li>{@link PinReason#SESSION_SET}: {@code SET} (any form but {@code SET LOCAL}, {@code SET TRANSACTION},
 *       {@code SET CONSTRAINTS}; so also {@code SET ROLE}, {@code SET SESSION AUTHORIZATION},
 *       {@code SET SESSION CHARACTERISTICS}); every {@code RESET}; {@code DISCARD ALL}; a call of
 *       {@code set_config} anywhere in a statement unless its third argument is a TRUE literal
 *       ({@code true}, {@code 't'}, {@code 'on'}, {@code 'yes'}, {@code '1'} …, optionally cast).
 *       A non-literal third argument such as a {@code ?} parameter pins, since the value cannot be
 *       known from the text. {@code RESET} and {@code DISCARD ALL} pin because they overwrite settings
 *       the driver applied to that server connection, so the pool's record of them would be wrong.</li>
 *   <li>{@link PinReason#LISTEN}: {@code LISTEN}. {@code UNLISTEN} does not pin: it only removes state,
 *       and a connection that listened is pinned already.</li>
 *   <li>{@link PinReason#PREPARED_STATEMENT}: {@code PREPARE name AS ...}. {@code EXECUTE} and {@code DEALLOCATE}
 *       do not pin: they only use or drop a statement whose PREPARE pinned already.</li>
 *   <li>{@link PinReason#TEMPORARY_OBJECT}: {@code CREATE [GLOBAL | LOCAL] TEMP | TEMPORARY TABLE | VIEW | SEQUENCE},
 *       except a table created {@code ON COMMIT DROP}; any {@code CREATE} statement that names a
 *       {@code pg_temp.} qualified object (e.g. a temporary function);
 *       {@code SELECT ... INTO [LOCAL | GLOBAL] TEMP | TEMPORARY name} or {@code INTO pg_temp.name}.</li>
 *   <li>{@link PinReason#ADVISORY_LOCK}: a call of {@code pg_advisory_lock}, {@code pg_advisory_lock_shared},
 *       {@code pg_try_advisory_lock} or {@code pg_try_advisory_lock_shared}; the {@code _xact_} variants
 *       end with the transaction and do not pin.</li>
 *   <li>{@link PinReason#HOLD_CURSOR}: {@code DECLARE name ... CURSOR WITH HOLD FOR ...}.</li>
 *   <li>{@link PinReason#LOAD}: {@code LOAD 'library'}.</li>
 *   <li>{@link PinReason#DYNAMIC_SQL}: a {@code DO} body running PL/pgSQL {@code EXECUTE} of a command string
 *       built at run time.</li>
 * </ul>
 * Names are compared as the server reads them: {@code U&"\0073et_config"} (with or without
 * {@code UESCAPE}) is {@code set_config}. {@code EXPLAIN [ANALYZE | VERBOSE | (options)]} is looked through:
 * the statement it explains is classified as if it stood alone, since ANALYZE runs it.
 * Function calls count wherever they appear (CTEs, subqueries, {@code {call ...}} escapes), whether
 * schema-qualified or written as a quoted identifier, except in statements that only define or name
 * routines: {@code CREATE [OR REPLACE] FUNCTION | PROCEDURE | VIEW | RULE}, {@code DROP},
 * {@code COMMENT}, {@code GRANT}, {@code REVOKE}. {@code NOTIFY} does not pin.
 *
 * <h2>Bodies of code</h2>
 * A {@code DO} block runs now, so its body (its value: escapes of {@code E'...'} and {@code U&'...'}
 * decoded) is scanned with the same rules, where statements also begin after the PL/pgSQL words BEGIN,
 * DECLARE, THEN, ELSE, LOOP and EXCEPTION; an {@code EXECUTE} of one literal is scanned as SQL, any other
 * {@code EXECUTE} pins. A {@code CREATE FUNCTION ... AS $$ ... $$} body is only stored, so it is not
 * scanned. What called functions do internally cannot be seen in the text and is not detected.
 *
 * <h2>Transaction control</h2>
 * Reported per {@link TransactionControl}; {@code COMMIT AND CHAIN} both ends and starts a transaction;
 * {@code PREPARE TRANSACTION} ends one; {@code SAVEPOINT}, {@code RELEASE} and {@code ROLLBACK TO}
 * are transaction control that neither start nor end one; {@code COMMIT PREPARED} and
 * {@code ROLLBACK PREPARED} are not transaction control for the session. Inside {@code DO} bodies
 * transaction control is not reported: the server's transaction status is what the pool follows.
 *
 * <h2>Malformed text</h2>
 * Classification never throws. An unterminated literal, quoted identifier or comment runs to the end
 * of the text and hides nothing before it; a {@code set_config} call cut off before its third argument
 * is complete pins.
 */
public final class SqlClassifier {

    public static final int DEFAULT_CACHE_SIZE = 4096;
    /** Longer texts, typically generated with inline values, are classified every time instead of filling the cache. */
    public static final int DEFAULT_MAX_CACHED_SQL_LENGTH = 4096;

    private static final Function<String, Classification> ANALYZE = StatementAnalyzer::classify;
    /** Slots of the direct-mapped table of recent texts in front of the cache. */
    private static final int RECENT_SLOTS = 256;

    private final Cache<String, Classification> cache;
    private final int maxCachedSqlLength;
    /**
     * The last text seen in each slot (by hash), looked up before the cache: an application's hot
     * statements are usually the same String instances, found here by one array read and a reference
     * compare instead of a cache lookup. Entries are immutable, so racing writes only lose an entry.
     * Empty when the cache is disabled.
     */
    private final Recent[] recent;

    public SqlClassifier() {
        this(DEFAULT_CACHE_SIZE, DEFAULT_MAX_CACHED_SQL_LENGTH);
    }

    /**
     * @param cacheSize          most SQL texts kept with their classification; 0 disables the cache
     * @param maxCachedSqlLength texts longer than this many characters are never cached
     */
    public SqlClassifier(int cacheSize, int maxCachedSqlLength) {
        if (cacheSize < 0) {
            throw new IllegalArgumentException("cacheSize must be >= 0, was " + cacheSize);
        }
        if (maxCachedSqlLength < 0) {
            throw new IllegalArgumentException("maxCachedSqlLength must be >= 0, was " + maxCachedSqlLength);
        }
        this.maxCachedSqlLength = maxCachedSqlLength;
        this.recent = new Recent[cacheSize > 0 ? RECENT_SLOTS : 0];
        // Maintenance runs on the calling thread: no dependency on the common pool, and the bound holds at once.
        this.cache = Caffeine.newBuilder()
                .maximumSize(cacheSize)
                .executor(Runnable::run)
                .build();
    }

    public Classification classify(String sql) {
        Objects.requireNonNull(sql, "sql");
        if (sql.length() > maxCachedSqlLength) {
            return StatementAnalyzer.classify(sql);
        }
        Recent[] table = recent;
        if (table.length == 0) {
            return cache.get(sql, ANALYZE);
        }
        int h = sql.hashCode();
        int slot = (h ^ (h >>> 16)) & (table.length - 1);
        Recent r = table[slot];
        if (r != null && (r.sql == sql || r.hash == h && r.sql.equals(sql))) {
            return r.classification;
        }
        Classification c = cache.get(sql, ANALYZE);
        table[slot] = new Recent(sql, h, c);
        return c;
    }

    private static final class Recent {
        final String sql;
        final int hash;
        final Classification classification;

        Recent(String sql, int hash, Classification classification) {
            this.sql = sql;
            this.hash = hash;
            this.classification = classification;
        }
    }

    /** How many texts the cache holds now (approximately, as Caffeine counts). */
    long cachedTexts() {
        return cache.estimatedSize();
    }
}
