package io.pgmux.proxy.config;

import java.nio.file.Path;

/**
 * The {@code [pgbouncer]} settings that belong to the standalone process rather than to the proxy:
 * where it logs, where it writes its pid and how verbosely.
 *
 * @param logfile PgBouncer's logfile, appended to; null when not set
 * @param pidfile PgBouncer's pidfile, written at start and removed at a clean exit; null when not set
 * @param verbose PgBouncer's verbose (0 by default), added to by {@code -v}
 */
public record ProcessSettings(Path logfile, Path pidfile, int verbose) {
}
