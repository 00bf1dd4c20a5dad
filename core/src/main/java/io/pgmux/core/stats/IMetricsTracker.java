package io.pgmux.core.stats;

/**
 * Receives pool events; the same methods as HikariCP's {@code IMetricsTracker}, so a Micrometer or
 * Prometheus tracker written for HikariCP ports by changing an import.
 */
public interface IMetricsTracker extends AutoCloseable {
    default void recordConnectionCreatedMillis(long connectionCreatedMillis) {
    }

    default void recordConnectionAcquiredNanos(long elapsedAcquiredNanos) {
    }

    default void recordConnectionUsageMillis(long elapsedBorrowedMillis) {
    }

    default void recordConnectionTimeout() {
    }

    /** A logical connection was pinned to its server connection (pgmux addition). */
    default void recordConnectionPinned(String reason) {
    }

    /** A server connection could not log in (pgmux addition). */
    default void recordServerLoginFailure() {
    }

    /**
     * The pool joined {@code fleet}: its share, lent and borrowed capacity, members seen and fallback state are in
     * {@link PoolStats#getFleet()} from now on (pgmux addition).
     */
    default void recordFleetJoined(String fleet) {
    }

    /** The pool left {@code fleet}, which {@link #recordFleetJoined} named (pgmux addition). */
    default void recordFleetLeft(String fleet) {
    }

    @Override
    default void close() {
    }
}
