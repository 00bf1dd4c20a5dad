package io.pgmux.proxy.server;

import io.netty.handler.ssl.IdentityCipherSuiteFilter;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.pgmux.proxy.config.TlsProtocols;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.net.ssl.SSLException;

/**
 * The TLS contexts of the pooler's connections to servers, from PgBouncer's server_tls_ca_file,
 * server_tls_cert_file, server_tls_key_file, server_tls_protocols, server_tls_ciphers and server_tls13_ciphers: one per kind of check (none; the
 * certificate chain; the chain and the host name), built once per proxy for the sslmodes in use, so that
 * opening a connection reads no file and builds no context. Files are read here, and a missing or malformed
 * one is refused here, naming the setting.
 */
public final class ServerTls {
    private final Map<TlsMode, SslContext> contexts;

    private ServerTls(Map<TlsMode, SslContext> contexts) {
        this.contexts = contexts;
    }

    /**
     * @param modes the sslmodes the proxy's databases use; contexts are built for these only
     * @param caFile PEM certificates trusted by verify-ca and verify-full, or null for the JDK's trusted CAs
     * @param certFile PEM certificate chain presented to servers that ask for one, or null; needs keyFile
     * @param keyFile unencrypted PKCS#8 PEM private key of certFile, or null
     * @param protocols JDK protocol names, or null for TLS 1.2 and 1.3 (PgBouncer's {@code secure})
     * @param ciphers JDK cipher suite names (see {@link io.pgmux.proxy.config.TlsCipherSuites}), or null for the
     *     JDK's defaults
     * @throws IllegalArgumentException naming the setting whose file cannot be used
     */
    public static ServerTls of(Set<TlsMode> modes, Path caFile, Path certFile, Path keyFile, List<String> protocols,
            List<String> ciphers) {
        if ((certFile == null) != (keyFile == null)) {
            throw new IllegalArgumentException("server_tls_cert_file and server_tls_key_file go together:"
                    + " set both or neither");
        }
        requireReadable("server_tls_ca_file", caFile);
        requireReadable("server_tls_cert_file", certFile);
        requireReadable("server_tls_key_file", keyFile);
        Map<TlsMode, SslContext> contexts = new EnumMap<>(TlsMode.class);
        SslContext unverified = null;
        for (TlsMode mode : modes) {
            switch (mode) {
                case DISABLE -> {
                    // no context: TLS is never asked for
                }
                case ALLOW, PREFER, REQUIRE -> {
                    if (unverified == null) {
                        unverified = build(Check.NONE, caFile, certFile, keyFile, protocols, ciphers);
                    }
                    contexts.put(mode, unverified);
                }
                case VERIFY_CA -> contexts.put(mode, build(Check.CHAIN, caFile, certFile, keyFile, protocols,
                        ciphers));
                case VERIFY_FULL -> contexts.put(mode, build(Check.CHAIN_AND_HOST, caFile, certFile, keyFile,
                        protocols, ciphers));
            }
        }
        return new ServerTls(contexts);
    }

    /** Whether servers can be reached in {@code mode} with the contexts built at start. */
    public boolean supports(TlsMode mode) {
        return mode == TlsMode.DISABLE || contexts.containsKey(mode);
    }

    /** The context for {@code mode}, or null for {@link TlsMode#DISABLE}. */
    SslContext context(TlsMode mode) {
        SslContext context = contexts.get(mode);
        if (context == null && mode != TlsMode.DISABLE) {
            throw new IllegalStateException("no TLS context was built for sslmode " + mode);
        }
        return context;
    }

    private enum Check { NONE, CHAIN, CHAIN_AND_HOST }

    private static SslContext build(Check check, Path caFile, Path certFile, Path keyFile, List<String> protocols,
            List<String> ciphers) {
        SslContextBuilder builder = SslContextBuilder.forClient()
                .protocols(protocols == null ? TlsProtocols.SECURE : protocols)
                .ciphers(ciphers, IdentityCipherSuiteFilter.INSTANCE)
                // Netty checks host names unless told otherwise; libpq does only for verify-full.
                .endpointIdentificationAlgorithm(check == Check.CHAIN_AND_HOST ? "HTTPS" : null);
        String using = "the server_tls_* settings";
        try {
            if (check == Check.NONE) {
                builder.trustManager(InsecureTrustManagerFactory.INSTANCE);
            } else if (caFile != null) {
                using = "server_tls_ca_file " + caFile;
                builder.trustManager(caFile.toFile());
            }
            // else the JDK's trusted CAs, as PgBouncer uses the system's without a CA file
            if (certFile != null) {
                using = "server_tls_cert_file " + certFile + " and server_tls_key_file " + keyFile;
                builder.keyManager(certFile.toFile(), keyFile.toFile());
            }
            return builder.build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new IllegalArgumentException("cannot use " + using + ": " + rootMessage(e), e);
        }
    }

    private static void requireReadable(String setting, Path file) {
        if (file != null && !Files.isReadable(file)) {
            throw new IllegalArgumentException(setting + " " + file + " does not exist or cannot be read");
        }
    }

    private static String rootMessage(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return String.valueOf(root.getMessage());
    }
}
