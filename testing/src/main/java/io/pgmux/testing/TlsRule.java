package io.pgmux.testing;

/**
 * How the fixture's TLS server ({@code @PostgresTest(tls = true)}) lets a user in over TCP, by a
 * {@code hostssl} or {@code hostnossl} line for members of {@link #groupRole()}. Each rule's group is refused
 * on every other connection, so a login shows which kind of connection the client made.
 */
public enum TlsRule {
    /** {@code hostssl ... trust}: in over TLS only, without a password. */
    TLS_ONLY("pgmux_tls_only", "hostssl", "trust"),
    /** {@code hostnossl ... trust}: in over plain TCP only, without a password. */
    PLAIN_ONLY("pgmux_plain_only", "hostnossl", "trust"),
    /**
     * {@code hostssl ... cert}: in over TLS with a client certificate that the server's CA signed and whose
     * common name is the user's name ({@link ServerCertificates#clientCertificate(String)}).
     */
    CLIENT_CERTIFICATE("pgmux_tls_cert", "hostssl", "cert");

    private final String groupRole;
    private final String connectionType;
    private final String hbaMethod;

    TlsRule(String groupRole, String connectionType, String hbaMethod) {
        this.groupRole = groupRole;
        this.connectionType = connectionType;
        this.hbaMethod = hbaMethod;
    }

    /** The NOLOGIN role whose members the rule's pg_hba.conf line matches. */
    public String groupRole() {
        return groupRole;
    }

    /** The rule's pg_hba.conf line for clients from {@code address}. */
    String hbaLine(String address) {
        return connectionType + " all +" + groupRole + " " + address + " " + hbaMethod;
    }

    /** Whether a login in plain text (no TLS) is let in. */
    boolean admitsPlainText() {
        return this == PLAIN_ONLY;
    }
}
