package io.pgmux.proxy.config;

import java.util.ArrayList;
import java.util.List;

/**
 * PgBouncer's listen_addr: comma-separated host names or addresses, IPv4 or IPv6 ({@code 127.0.0.1, ::1}); empty
 * listens on the Unix socket only. {@code *} is every address: the IPv6 wildcard {@code ::}, one dual-stack socket
 * that Linux also gives every IPv4 address (unless {@code net.ipv6.bindv6only} is set), or {@code 0.0.0.0} on a
 * host without IPv6.
 */
public final class ListenAddresses {
    /** What {@code *} binds first. */
    public static final String EVERY_ADDRESS = "::";
    /** What {@code *} binds where the host has no IPv6. */
    public static final String EVERY_IPV4_ADDRESS = "0.0.0.0";

    private ListenAddresses() {
    }

    /**
     * The list as kept: entries stripped, joined by commas.
     *
     * @throws IllegalArgumentException naming {@code key}, for an empty entry or {@code *} beside other entries
     */
    static String normalized(String key, String text) {
        return String.join(",", entries(key, text));
    }

    /** The hosts to bind, {@code *} as {@link #EVERY_ADDRESS}; empty for the Unix socket only. */
    public static List<String> hosts(String listenAddr) {
        return entries("listen_addr", listenAddr).stream().map(h -> h.equals("*") ? EVERY_ADDRESS : h).toList();
    }

    private static List<String> entries(String key, String text) {
        List<String> hosts = new ArrayList<>();
        if (text.isBlank()) {
            return hosts;
        }
        for (String entry : text.split(",", -1)) {
            String host = entry.strip();
            if (host.isEmpty()) {
                throw new IllegalArgumentException(key + ": empty address in the list \"" + text + "\"");
            }
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            hosts.add(host);
        }
        if (hosts.size() > 1 && hosts.contains("*")) {
            throw new IllegalArgumentException(key + ": * already means every address, not with others in \""
                    + text + "\"");
        }
        return hosts;
    }
}
