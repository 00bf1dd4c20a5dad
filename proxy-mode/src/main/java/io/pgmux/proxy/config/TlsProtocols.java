package io.pgmux.proxy.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * PgBouncer's client_tls_protocols and server_tls_protocols, read as its TLS library (libtls) reads them: names
 * separated by commas, colons or spaces, each {@code tlsv1.0} (or {@code tlsv1}), {@code tlsv1.1}, {@code tlsv1.2},
 * {@code tlsv1.3}, or a shortcut, {@code secure}/{@code default} (1.2 and 1.3) or {@code all}/{@code legacy} (all
 * four); a name after {@code !} is taken away, from all four when it comes first ({@code !tlsv1.0,!tlsv1.1}).
 * The result is in the JDK's names; the JDK refuses TLS 1.0 and 1.1 unless its {@code jdk.tls.disabledAlgorithms}
 * allows them.
 */
public final class TlsProtocols {
    /** PgBouncer's default, {@code secure}. */
    public static final List<String> SECURE = List.of("TLSv1.3", "TLSv1.2");
    private static final List<String> ALL = List.of("TLSv1.3", "TLSv1.2", "TLSv1.1", "TLSv1");

    private TlsProtocols() {
    }

    /**
     * @param key the setting's name, for the error
     * @throws IllegalArgumentException naming the key and the value it does not know, or when none is left
     */
    public static List<String> parse(String key, String value) {
        List<String> protocols = new ArrayList<>();
        for (String token : value.strip().toLowerCase(Locale.ROOT).split("[,:\\s]+")) {
            boolean negated = token.startsWith("!");
            String name = negated ? token.substring(1) : token;
            if (negated && protocols.isEmpty()) {
                protocols.addAll(ALL);
            }
            List<String> named = switch (name) {
                case "secure", "default" -> SECURE;
                case "all", "legacy" -> ALL;
                case "tlsv1.3" -> List.of("TLSv1.3");
                case "tlsv1.2" -> List.of("TLSv1.2");
                case "tlsv1.1" -> List.of("TLSv1.1");
                case "tlsv1.0", "tlsv1" -> List.of("TLSv1");
                default -> throw new IllegalArgumentException("unsupported " + key + " value \"" + token
                        + "\": use tlsv1.0, tlsv1.1, tlsv1.2, tlsv1.3, secure, all or legacy, each optionally"
                        + " after ! to leave it out");
            };
            if (negated) {
                protocols.removeAll(named);
            } else {
                named.stream().filter(p -> !protocols.contains(p)).forEach(protocols::add);
            }
        }
        if (protocols.isEmpty()) {
            throw new IllegalArgumentException(key + " \"" + value + "\" leaves no TLS protocol version");
        }
        return List.copyOf(protocols);
    }
}
