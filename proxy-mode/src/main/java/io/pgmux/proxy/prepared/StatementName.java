package io.pgmux.proxy.prepared;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A client's name for a prepared statement, compared by its bytes as PostgreSQL compares names. The names a client
 * keeps are made once, at its Parse ({@link #copyOf}); each Bind's name is looked up through one view per client,
 * {@link #read} again for every Bind, so that a Bind makes no String and no new object.
 */
final class StatementName {
    private byte[] bytes;
    private int length;
    private int hash;

    /** A view to {@link #read} names into; equal to the empty name until then. */
    StatementName() {
        this.bytes = new byte[16];
        this.hash = hash(bytes, 0);
    }

    private StatementName(byte[] bytes) {
        this.bytes = bytes;
        this.length = bytes.length;
        this.hash = hash(bytes, bytes.length);
    }

    /** The name of {@code length} bytes at {@code index} of {@code frames}, kept as a map's key. */
    static StatementName copyOf(ByteBuf frames, int index, int length) {
        byte[] bytes = new byte[length];
        frames.getBytes(index, bytes);
        return new StatementName(bytes);
    }

    /** This view now holds the name of {@code length} bytes at {@code index} of {@code frames}; it returns itself. */
    StatementName read(ByteBuf frames, int index, int length) {
        if (bytes.length < length) {
            bytes = new byte[Math.max(length, bytes.length * 2)];
        }
        frames.getBytes(index, bytes, 0, length);
        this.length = length;
        this.hash = hash(bytes, length);
        return this;
    }

    private static int hash(byte[] bytes, int length) {
        int hash = 1;
        for (int i = 0; i < length; i++) {
            hash = 31 * hash + bytes[i];
        }
        return hash;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StatementName other && other.hash == hash
                && Arrays.equals(bytes, 0, length, other.bytes, 0, other.length);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    /** The name as PostgreSQL's error messages show it. */
    @Override
    public String toString() {
        return new String(bytes, 0, length, StandardCharsets.UTF_8);
    }
}
