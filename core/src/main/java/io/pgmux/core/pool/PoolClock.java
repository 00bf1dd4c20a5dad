package io.pgmux.core.pool;

/** Monotonic time for every timing rule, injectable so the rules are testable without sleeping. */
@FunctionalInterface
public interface PoolClock {
    PoolClock SYSTEM = System::nanoTime;

    long nanoTime();
}
