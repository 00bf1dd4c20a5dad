package io.pgmux.proxy.prepared;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * The named prepared statements one server connection holds for the pooler (PgBouncer's
 * max_prepared_statements, read at each Parse), least recently used first. Names are {@code PGMUX_n}, never
 * reused on the connection, so a statement whose fate is unknown can simply be forgotten. Used only by the client
 * the connection is linked to, on that client's loop.
 */
public final class PreparedStatementCache {
    private final IntSupplier capacity;
    private final LinkedHashMap<StatementKey, String> names = new LinkedHashMap<>(32, 0.75f, true);
    private long nextId;

    /** @param capacity statements kept before the least recently used one is closed, read at each Parse */
    public PreparedStatementCache(IntSupplier capacity) {
        this.capacity = capacity;
    }

    /** The server-side name of {@code key}, or null when this connection has not prepared it. */
    public String get(StatementKey key) {
        return names.get(key);
    }

    /** Names {@code key} for a Parse about to be sent. */
    public String add(StatementKey key) {
        String name = "PGMUX_" + (++nextId);
        names.put(key, name);
        return name;
    }

    /**
     * When full (or over a capacity lowered since), removes the least recently used statement and returns its name,
     * to be closed on the server; null once there is room for one more.
     */
    public String evictIfFull() {
        if (names.size() < Math.max(1, capacity.getAsInt())) {
            return null;
        }
        Iterator<Map.Entry<StatementKey, String>> eldest = names.entrySet().iterator();
        String name = eldest.next().getValue();
        eldest.remove();
        return name;
    }

    /** The Parse failed or was skipped: the server does not have it. */
    public void remove(StatementKey key) {
        names.remove(key);
    }

    /** After DISCARD ALL or DEALLOCATE ALL. */
    public void clear() {
        names.clear();
    }

    public int size() {
        return names.size();
    }
}
