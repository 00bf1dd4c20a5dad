package io.pgmux.proxy.server;

import java.util.Locale;

/** PgBouncer's load_balance_hosts: which entry of a host list a new server connection tries first. */
public enum LoadBalanceHosts {
    /** Each new connection starts at the entry after the one the previous connection started at. */
    ROUND_ROBIN("round-robin"),
    /** New connections start at the same entry until a connection to it fails, then at the next one. */
    DISABLE("disable");

    private final String configName;

    LoadBalanceHosts(String configName) {
        this.configName = configName;
    }

    /** @throws IllegalArgumentException naming the accepted values */
    public static LoadBalanceHosts fromConfig(String value) {
        String name = value.trim().toLowerCase(Locale.ROOT);
        for (LoadBalanceHosts mode : values()) {
            if (mode.configName.equals(name)) {
                return mode;
            }
        }
        throw new IllegalArgumentException("unsupported load_balance_hosts \"" + value
                + "\": use round-robin or disable");
    }

    public String configName() {
        return configName;
    }

    @Override
    public String toString() {
        return configName;
    }
}
