package io.pgmux.proxy.fleet;

import java.util.Objects;

/**
 * A {@code [databases]} entry's fleet: its pools, one per user, hold at most {@code maxServers} server connections
 * together with the pools of the same fleet, database and user in every other proxy or JDBC driver (docs/fleet.md).
 *
 * @param name the entry's {@code fleet}
 * @param maxServers the entry's {@code fleet_max_servers}, at least 1
 */
public record FleetSetting(String name, int maxServers) {
    public static final String FLEET = "fleet";
    public static final String FLEET_MAX_SERVERS = "fleet_max_servers";

    public FleetSetting {
        Objects.requireNonNull(name, "name");
    }

    /**
     * The fleet of an entry's {@code fleet} and {@code fleet_max_servers} as written (each null when not set), or
     * null for none.
     *
     * @throws IllegalArgumentException naming {@code owner} and the key, when one is set without the other or the
     *     budget is not a whole number of at least 1
     */
    public static FleetSetting of(String owner, String name, String maxServers) {
        String fleet = name == null || name.isBlank() ? null : name.strip();
        if (fleet == null && maxServers == null) {
            return null;
        }
        if (fleet == null) {
            throw new IllegalArgumentException(owner + ": " + FLEET_MAX_SERVERS + "=" + maxServers + " needs "
                    + FLEET + ", the name of the fleet");
        }
        if (maxServers == null) {
            throw new IllegalArgumentException(owner + ": " + FLEET + "=" + fleet + " needs " + FLEET_MAX_SERVERS
                    + ", the server connections the fleet's pools hold together");
        }
        int max;
        try {
            max = Integer.parseInt(maxServers.strip());
        } catch (NumberFormatException e) {
            max = 0;
        }
        if (max < 1) {
            throw new IllegalArgumentException(owner + ": " + FLEET_MAX_SERVERS + " must be a whole number of at"
                    + " least 1, not \"" + maxServers + "\"");
        }
        return new FleetSetting(fleet, max);
    }
}
