package io.pgmux.jdbc.logical;

/**
 * Which cluster a pool's primary belongs to, as {@code pg_control_system()} and {@code pg_control_checkpoint()}
 * say: WAL positions compare only within one system identifier, and plainly only within one timeline.
 */
public record ClusterIdentity(long systemIdentifier, int timeline) {
}
