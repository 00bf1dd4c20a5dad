package io.pgmux.testing;

import java.nio.file.Path;

/**
 * The certificates of the fixture's TLS server ({@code @PostgresTest(tls = true)}): one test CA signed the
 * server's certificate, which names {@link #certifiedHost()} only (no IP address, so a client that checks host
 * names accepts {@code localhost} and refuses {@code 127.0.0.1}), and the server trusts client certificates
 * that CA signs.
 */
public final class ServerCertificates {
    static final String CERTIFIED_HOST = "localhost";

    private final TestCertificates authority;

    ServerCertificates(TestCertificates authority) {
        this.authority = authority;
    }

    /** The CA's certificate (PEM): what a client that verifies the server trusts. */
    public Path caCertificate() {
        return authority.caCertificate();
    }

    /** The one host name the server's certificate names. */
    public String certifiedHost() {
        return CERTIFIED_HOST;
    }

    /**
     * A client certificate for {@code user} (its common name) that the server accepts for a
     * {@link TlsRule#CLIENT_CERTIFICATE} user of that name, with an unencrypted PKCS#8 PEM key.
     */
    public synchronized TestCertificates.Issued clientCertificate(String user) {
        return authority.issue("client-" + user, user, null);
    }

    /**
     * A client certificate that the server accepts for {@code user}, for the key of {@code request}, a PKCS#10
     * certificate request whose common name is {@code user}.
     */
    public synchronized Path clientCertificate(String user, Path request) {
        return authority.sign("client-" + user, request, null);
    }
}
