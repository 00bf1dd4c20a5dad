package io.pgmux.core.pool;

/**
 * Where and when a server connection was lent, kept only while leak detection is on: the janitor reports
 * a loan older than the threshold once, with the stack that took it.
 */
final class LeakWatch {
    final long lentAtNanos;
    final Throwable site;
    volatile boolean reported;

    LeakWatch(long lentAtNanos) {
        this.lentAtNanos = lentAtNanos;
        this.site = new Throwable("Apparent connection leak detected: lease taken here");
    }
}
