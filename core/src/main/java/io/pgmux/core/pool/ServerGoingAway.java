package io.pgmux.core.pool;

import java.util.Set;

/**
 * The SQLSTATEs with which a server says that it is going away, not that a request or a login was wrong:
 * admin_shutdown (57P01: a fast shutdown, pg_terminate_backend), crash_shutdown (57P02), cannot_connect_now
 * (57P03: shutting down or starting up) and idle_session_timeout (57P05). Its connection is lost, and another,
 * now or a little later, will serve.
 */
public final class ServerGoingAway {
    private static final Set<String> STATES = Set.of("57P01", "57P02", "57P03", "57P05");

    private ServerGoingAway() {
    }

    /** Whether {@code sqlState} (null for none) is one of them. */
    public static boolean means(String sqlState) {
        return sqlState != null && STATES.contains(sqlState);
    }
}
