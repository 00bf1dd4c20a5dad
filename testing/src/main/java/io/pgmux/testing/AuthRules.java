package io.pgmux.testing;

import java.util.ArrayList;
import java.util.List;

/**
 * The pg_hba.conf the fixture installs: members of each {@link PasswordMethod#groupRole()} must
 * authenticate with that method over TCP; everyone else falls through to the server's usual rule.
 * The first matching line wins, so the group lines come before the fallback.
 */
final class AuthRules {

    private static final List<String> LOOPBACK = List.of("127.0.0.1/32", "::1/128");

    private AuthRules() {
    }

    /** The group lines alone, for loopback clients: what an external server needs added to its hba file. */
    static List<String> groupLines() {
        return groupLines(LOOPBACK);
    }

    /** A whole hba file for a server the fixture owns and reaches over loopback; other users are trusted. */
    static String loopbackFile() {
        List<String> lines = new ArrayList<>();
        lines.add("local all all trust");
        lines.addAll(groupLines(LOOPBACK));
        for (String address : LOOPBACK) {
            lines.add("host all all " + address + " trust");
        }
        // physical replication connections match only this keyword; the server still asks for the REPLICATION role
        for (String address : LOOPBACK) {
            lines.add("host replication all " + address + " trust");
        }
        return String.join("\n", lines) + "\n";
    }

    /**
     * The hba file of the fixture's TLS server: each {@link TlsRule}'s line, then a {@code reject} for its
     * members on any other connection, then the loopback file's lines.
     */
    static String tlsFile() {
        List<String> lines = new ArrayList<>();
        lines.add("local all all trust");
        List<String> groups = new ArrayList<>();
        for (TlsRule rule : TlsRule.values()) {
            groups.add("+" + rule.groupRole());
        }
        for (String address : LOOPBACK) {
            for (TlsRule rule : TlsRule.values()) {
                lines.add(rule.hbaLine(address));
            }
            lines.add("host all " + String.join(",", groups) + " " + address + " reject");
        }
        lines.addAll(groupLines(LOOPBACK));
        for (String address : LOOPBACK) {
            lines.add("host all all " + address + " trust");
        }
        return String.join("\n", lines) + "\n";
    }

    /**
     * A whole hba file for a server in a container, whose clients arrive from the container network's
     * gateway rather than loopback; other users need their password.
     */
    static List<String> anyAddressLines() {
        List<String> lines = new ArrayList<>();
        lines.add("local all all trust");
        lines.addAll(groupLines(List.of("all")));
        lines.add("host all all all scram-sha-256");
        return lines;
    }

    private static List<String> groupLines(List<String> addresses) {
        List<String> lines = new ArrayList<>();
        for (PasswordMethod method : PasswordMethod.values()) {
            for (String address : addresses) {
                lines.add("host all +" + method.groupRole() + " " + address + " " + method.hbaMethod());
            }
        }
        return lines;
    }
}
