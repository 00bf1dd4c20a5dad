package io.pgmux.core.fleet;

import java.time.Duration;

/** Opens a member's coordination connection, logged in as its pool's server connections are. */
@FunctionalInterface
public interface FleetSessions {
    /**
     * A new connection in autocommit mode, showing {@code applicationName} from its login on, whose waits for
     * the server (the login's too) end after {@code timeout}.
     */
    FleetSession open(String applicationName, Duration timeout) throws FleetQueryException;
}
