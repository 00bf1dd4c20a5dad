package io.pgmux.proxy.client;

import io.pgmux.core.pool.PinReason;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One pool's clients pinned to their server by session state (pin_session_state), per reason: how many are pinned
 * now and how often a client was pinned. Touched only when a client's session state changes, never per query.
 */
public final class PinCounts {
    private final AtomicIntegerArray pinnedNow = new AtomicIntegerArray(PinReason.values().length);
    private final AtomicLongArray pinsTotal = new AtomicLongArray(PinReason.values().length);

    /** Clients whose server holds this state now (a client with two kinds of state counts under both). */
    public int pinnedNow(PinReason reason) {
        return pinnedNow.get(reason.ordinal());
    }

    /** Times a client came to hold this state across a transaction's end, since the proxy started. */
    public long pinsTotal(PinReason reason) {
        return pinsTotal.get(reason.ordinal());
    }

    /** A client's reasons went from {@code before} to {@code after} (bit masks of {@link PinReason#bit()}). */
    void changed(int before, int after) {
        for (PinReason reason : PinReason.values()) {
            boolean was = (before & reason.bit()) != 0;
            boolean is = (after & reason.bit()) != 0;
            if (is && !was) {
                pinnedNow.incrementAndGet(reason.ordinal());
                pinsTotal.incrementAndGet(reason.ordinal());
            } else if (was && !is) {
                pinnedNow.decrementAndGet(reason.ordinal());
            }
        }
    }
}
