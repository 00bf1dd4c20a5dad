package io.pgmux.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Waits for a condition a test can observe (a count, a state, a row) instead of sleeping for a guessed time: the
 * probe is read every few milliseconds until it holds or the timeout passes, so a fast machine waits little and a
 * loaded one still passes.
 */
public final class Await {
    private static final long POLL_MILLIS = 10;

    private Await() {
    }

    /** Something a test reads, which may fail as JDBC calls do. */
    @FunctionalInterface
    public interface Probe<T> {
        T read() throws Exception;
    }

    /** Waits until {@code condition} holds; fails the test naming {@code what} once {@code timeout} has passed. */
    public static void until(Probe<Boolean> condition, Duration timeout, String what) {
        if (!Boolean.TRUE.equals(value(condition, Boolean.TRUE::equals, timeout))) {
            throw new AssertionError("still not so after " + timeout + ": " + what);
        }
    }

    /** Waits until {@code probe} reads {@code expected}; fails the test with the last value read otherwise. */
    public static <T> void equal(T expected, Probe<T> probe, Duration timeout, String what) {
        assertEquals(expected, value(probe, v -> Objects.equals(expected, v), timeout), what + " (waited " + timeout + ")");
    }

    /**
     * Reads {@code probe} until {@code done} accepts the value or {@code timeout} has passed, and returns the last
     * value read, accepted or not: the caller's assertion then shows what was seen.
     */
    public static <T> T value(Probe<T> probe, Predicate<? super T> done, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        T value = read(probe);
        while (!done.test(value) && System.nanoTime() < deadline) {
            pause();
            value = read(probe);
        }
        return value;
    }

    private static <T> T read(Probe<T> probe) {
        try {
            return probe.read();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("the awaited probe failed", e);
        }
    }

    private static void pause() {
        try {
            Thread.sleep(POLL_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting", e);
        }
    }
}
