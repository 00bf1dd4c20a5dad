package io.pgmux.proxy.replicas;

import io.netty.buffer.ByteBuf;
import io.pgmux.proxy.protocol.CommandComplete;

/**
 * The CommandComplete tags of commands that write nothing a later read could miss: a transaction whose tags are all
 * of these needs no WAL position for read-your-writes. SELECT is not among them: a SELECT may call a function that
 * writes ({@code nextval}, any PL/pgSQL), and its tag is SELECT all the same.
 */
public final class WriteTags {
    private static final byte[][] NO_WRITE = tags("BEGIN", "START TRANSACTION", "COMMIT", "ROLLBACK", "SET", "RESET",
            "SHOW", "SAVEPOINT", "RELEASE", "DEALLOCATE", "DEALLOCATE ALL", "DISCARD ALL", "CLOSE CURSOR",
            "CLOSE CURSOR ALL", "LISTEN", "UNLISTEN");

    private WriteTags() {
    }

    /** Whether the CommandComplete whose tag ({@code length} bytes, its zero included) lies at {@code start} may have written. */
    public static boolean mayWrite(ByteBuf frames, int start, int length) {
        for (byte[] tag : NO_WRITE) {
            if (CommandComplete.hasTag(frames, start, length, tag)) {
                return false;
            }
        }
        return true;
    }

    private static byte[][] tags(String... tags) {
        byte[][] onTheWire = new byte[tags.length][];
        for (int i = 0; i < tags.length; i++) {
            onTheWire[i] = CommandComplete.tag(tags[i]);
        }
        return onTheWire;
    }
}
