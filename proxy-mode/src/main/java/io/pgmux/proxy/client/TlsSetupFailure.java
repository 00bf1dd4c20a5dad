package io.pgmux.proxy.client;

import io.pgmux.proxy.config.ProxySetting;
import io.pgmux.proxy.config.ProxySettings;
import io.pgmux.proxy.config.TlsCipherSuites;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PgBouncer's log line for client TLS that cannot be set up, at start, RELOAD and SET: {@code TLS setup failed:
 * failed to load certificate file "…": No such file or directory}, with the system's words for a file that cannot
 * be opened, as operators' log watchers know them. The exception, naming the setting, goes on to the caller.
 */
final class TlsSetupFailure {
    private static final Logger log = LoggerFactory.getLogger(ClientTls.class);

    private TlsSetupFailure() {
    }

    /** What {@code load} reads from {@code file} (in PgBouncer's words, e.g. {@code CA}), its failure logged. */
    static <T> T logged(String file, Supplier<T> load) {
        try {
            return load.get();
        } catch (IllegalArgumentException e) {
            log.error("TLS setup failed: failed to load {}: {}", file, reason(e));
            throw e;
        }
    }

    /** client_tls_ciphers and client_tls13_ciphers, a refusal logged (client_tls13_ciphers' in PgBouncer's words). */
    static TlsCipherSuites cipherSuites(ProxySettings settings) {
        try {
            return TlsCipherSuites.parse("client", settings.get(ProxySetting.CLIENT_TLS_CIPHERS),
                    settings.get(ProxySetting.CLIENT_TLS13_CIPHERS));
        } catch (IllegalArgumentException e) {
            // each refusal starts with the key it is about
            if (e.getMessage().startsWith(ProxySetting.CLIENT_TLS13_CIPHERS.configName())) {
                log.error("TLS setup failed: failed to set the TLSv1.3 cipher suites: {}", e.getMessage());
            } else {
                log(e);
            }
            throw e;
        }
    }

    /** Logs a failure that is not one file's. */
    static void log(Exception e) {
        log.error("TLS setup failed: {}", e.getMessage());
    }

    private static String reason(IllegalArgumentException e) {
        if (e.getCause() instanceof NoSuchFileException) {
            return "No such file or directory";
        }
        if (e.getCause() instanceof AccessDeniedException) {
            return "Permission denied";
        }
        return e.getMessage();
    }
}
