package io.pgmux.proxy.server;

import io.pgmux.proxy.config.TlsMode;
import java.io.IOException;

/**
 * The server answered SSLRequest with 'N' where server_tls_sslmode requires TLS. As in PgBouncer, which closes such a
 * connection as one that failed to connect, the server counts as one that could not be reached, not as one that
 * refused the login: clients keep waiting, up to query_wait_timeout, while logins are tried again, so a server that
 * is restarted with ssl = on, or a RELOAD or SET of a mode that does without TLS, lets them in.
 */
final class ServerRefusedTlsException extends IOException {
    private static final long serialVersionUID = 1L;

    /** PgBouncer's words, "server refused SSL", which operators search its log for. */
    ServerRefusedTlsException(TlsMode mode) {
        super("server refused SSL (sslmode " + mode + ")", null);
    }
}
