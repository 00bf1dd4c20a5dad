package io.pgmux.proxy.transport;

import io.netty.channel.EventLoop;

/**
 * The relay's clock: {@link System#nanoTime()} read once per pass of an event loop over its ready sockets and the
 * tasks after them, as PgBouncer reads its cached time once per pass of its loop, rather than once for each message
 * a client sends and each ReadyForQuery a server sends (3 % of the loop's user time under TPC-B). What the relay times
 * with it (query and transaction times, request_time, the client timeouts' starts) is a pass's length off at most.
 * Loops other than epoll's read the clock at every call.
 */
public final class LoopClock {
    private LoopClock() {
    }

    /**
     * The wall clock's milliseconds when {@link System#nanoTime()} was 0, read once: a date kept on the monotonic
     * clock ({@link #millisAt}) costs no field of its own, and dates so taken keep their order.
     */
    private static final long MILLIS_AT_NANOS_ZERO = System.currentTimeMillis() - System.nanoTime() / 1_000_000;

    /** The date, in milliseconds since the epoch, of {@code nanos} on {@link System#nanoTime()}'s clock. */
    public static long millisAt(long nanos) {
        return MILLIS_AT_NANOS_ZERO + Math.floorDiv(nanos, 1_000_000);
    }

    /** The time for what {@code loop} handles now; called on {@code loop} only. */
    public static long nanoTime(EventLoop loop) {
        return loop instanceof EpollEventLoops.Loop pass ? pass.passNanoTime() : System.nanoTime();
    }
}
