package io.pgmux.proxy.client;

import io.pgmux.proxy.protocol.BackendKeyData;
import java.util.AbstractCollection;
import java.util.Collection;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The logged-in clients by the cancel key each was given ({@link ClientConnection#cancelKey}: a process id and a
 * 4-byte secret in one long), for a CancelRequest to find its client and for the timeout passes to walk them.
 *
 * <p>An open-addressing table of the clients themselves rather than a {@code ConcurrentHashMap}: that map kept a node
 * and a key object for every client, 56 B of each idle client's, where a slot here is 4 B at a load of at most a half.
 * The JDK and the project's libraries have no concurrent map of primitive keys. Adds and removes take the table's lock
 * (a login's and a close's moment, never a relayed message's, and nothing that blocks); lookups and walks take none
 * and read the table as some moment left it: a client added or removed meanwhile may be seen or not, as with the map.
 */
final class CancelKeys implements Iterable<ClientConnection> {
    /** What a removed client's slot holds, so that probes for the keys placed after it go on past it. */
    private static final Object REMOVED = new Object();
    private static final int MIN_CAPACITY = 64;

    private final ReentrantLock lock = new ReentrantLock();
    /** A power of two long; replaced whole when it grows or shrinks, so lookups never see it half copied. */
    private volatile AtomicReferenceArray<Object> slots = new AtomicReferenceArray<>(MIN_CAPACITY);
    /** Clients in {@link #slots}; written under {@link #lock}. */
    private volatile int size;
    /** Slots not null: clients and {@link #REMOVED} marks; under {@link #lock}. */
    private int used;

    /** Adds {@code client} under its key; false, and nothing added, when another client has that key. */
    boolean add(ClientConnection client) {
        long key = client.cancelKey;
        lock.lock();
        try {
            AtomicReferenceArray<Object> table = slots;
            if (2 * (used + 1) > table.length()) {
                table = rebuild(size + 1);
            }
            int mask = table.length() - 1;
            int free = -1;
            for (int i = index(key, mask);; i = i + 1 & mask) {
                Object slot = table.get(i);
                if (slot == null) {
                    if (free < 0) {
                        free = i;
                        used++;
                    }
                    break;
                }
                if (slot == REMOVED) {
                    if (free < 0) {
                        free = i;
                    }
                } else if (((ClientConnection) slot).cancelKey == key) {
                    return false;
                }
            }
            table.set(free, client);
            size++;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Removes {@code client}, if it is here. */
    void remove(ClientConnection client) {
        long key = client.cancelKey;
        lock.lock();
        try {
            AtomicReferenceArray<Object> table = slots;
            int mask = table.length() - 1;
            for (int i = index(key, mask);; i = i + 1 & mask) {
                Object slot = table.get(i);
                if (slot == null) {
                    return;
                }
                if (slot == client) {
                    table.set(i, REMOVED);
                    size--;
                    break;
                }
            }
            if (table.length() > MIN_CAPACITY && 16 * size < table.length()) {
                // thousands of clients gone: a table for those left, so that walks do not cross empty slots
                rebuild(size);
            }
        } finally {
            lock.unlock();
        }
    }

    /** The client given {@code key}, or null; a key with a secret longer than 4 bytes is none of ours. */
    ClientConnection find(BackendKeyData key) {
        if (!key.hasShortSecret()) {
            return null;
        }
        long wanted = key.asLong();
        AtomicReferenceArray<Object> table = slots;
        int mask = table.length() - 1;
        for (int i = index(wanted, mask);; i = i + 1 & mask) {
            Object slot = table.get(i);
            if (slot == null) {
                return null;
            }
            if (slot != REMOVED && ((ClientConnection) slot).cancelKey == wanted) {
                return (ClientConnection) slot;
            }
        }
    }

    /** How many clients are here. */
    int size() {
        return size;
    }

    /** The clients here, read-only, as {@link #iterator()} walks them. */
    Collection<ClientConnection> view() {
        return new AbstractCollection<>() {
            @Override
            public Iterator<ClientConnection> iterator() {
                return CancelKeys.this.iterator();
            }

            @Override
            public int size() {
                return CancelKeys.this.size();
            }

            /** Of no set size: the table may change while a stream walks it, as a concurrent map's values may. */
            @Override
            public Spliterator<ClientConnection> spliterator() {
                return Spliterators.spliteratorUnknownSize(iterator(), Spliterator.CONCURRENT | Spliterator.NONNULL);
            }
        };
    }

    /** The clients here, as the table stands when each slot is read. */
    @Override
    public Iterator<ClientConnection> iterator() {
        AtomicReferenceArray<Object> table = slots;
        return new Iterator<>() {
            private int at;
            private ClientConnection upcoming = from(0);

            /** The first client at or after slot {@code index}, which {@link #at} then names; null past the end. */
            private ClientConnection from(int index) {
                for (int i = index; i < table.length(); i++) {
                    if (table.get(i) instanceof ClientConnection client) {
                        at = i;
                        return client;
                    }
                }
                return null;
            }

            @Override
            public boolean hasNext() {
                return upcoming != null;
            }

            @Override
            public ClientConnection next() {
                ClientConnection client = upcoming;
                if (client == null) {
                    throw new NoSuchElementException();
                }
                upcoming = from(at + 1);
                return client;
            }
        };
    }

    /** Under the lock: a table for {@code entries} clients at a load of at most a third, holding those here now. */
    private AtomicReferenceArray<Object> rebuild(int entries) {
        int capacity = MIN_CAPACITY;
        while (capacity < 3 * entries) {
            capacity <<= 1;
        }
        AtomicReferenceArray<Object> old = slots;
        AtomicReferenceArray<Object> fresh = new AtomicReferenceArray<>(capacity);
        int mask = capacity - 1;
        for (int j = 0; j < old.length(); j++) {
            if (old.get(j) instanceof ClientConnection client) {
                int i = index(client.cancelKey, mask);
                while (fresh.get(i) != null) {
                    i = i + 1 & mask;
                }
                fresh.set(i, client);
            }
        }
        used = size;
        slots = fresh;
        return fresh;
    }

    /**
     * The first slot to probe: every bit of the key mixed into every bit of the slot (MurmurHash3's 64-bit finalizer),
     * as the low bits of a process id are partly a peer's id, the same for all of a process's keys.
     */
    private static int index(long key, int mask) {
        long h = key ^ key >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        h ^= h >>> 33;
        return (int) h & mask;
    }
}
