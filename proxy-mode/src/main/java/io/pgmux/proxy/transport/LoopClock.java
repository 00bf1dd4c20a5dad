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

    /** The time for what {@code loop} handles now; called on {@code loop} only. */
    public static long nanoTime(EventLoop loop) {
        return loop instanceof EpollEventLoops.Loop pass ? pass.passNanoTime() : System.nanoTime();
    }
}
