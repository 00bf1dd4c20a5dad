package io.pgmux.proxy.server;

import io.pgmux.proxy.config.TlsMode;
import java.security.cert.CertificateException;
import javax.net.ssl.SSLException;

/**
 * A TLS handshake with a server that failed, whichever side noticed it (with TLS 1.3 a server refuses a client
 * certificate after the client finished its handshake). As in PgBouncer, the server counts as one that could not be
 * reached, not as one that refused the login: clients keep waiting, up to query_wait_timeout, while logins are tried
 * again, and an operator who fixes the certificate or the CA file lets them in without a restart.
 */
final class ServerTlsHandshakeException extends SSLException {
    private static final long serialVersionUID = 1L;

    private ServerTlsHandshakeException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * {@code failure} as a failed handshake if its cause chain holds an SSLException, else unchanged. It reads
     * {@code TLS handshake failed (sslmode …): <root cause>}, the root cause saying what was wrong ("unable to find
     * valid certification path …") where its wrappers do not; a certificate that failed this side's check gets
     * OpenSSL's {@code certificate verify failed} before it, the words PgBouncer logs and operators search for.
     */
    static Throwable of(Throwable failure, TlsMode mode) {
        Throwable root = failure;
        boolean tls = false;
        boolean certificate = false;
        for (Throwable t = failure; t != null; t = t.getCause()) {
            tls |= t instanceof SSLException;
            certificate |= t instanceof CertificateException;
            root = t;
        }
        if (!tls) {
            return failure;
        }
        return new ServerTlsHandshakeException("TLS handshake failed (sslmode " + mode + "): "
                + (certificate ? "certificate verify failed: " : "") + root.getMessage(), failure);
    }
}
