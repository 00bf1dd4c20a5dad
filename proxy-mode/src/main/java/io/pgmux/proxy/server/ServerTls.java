package io.pgmux.proxy.server;

import io.netty.handler.ssl.IdentityCipherSuiteFilter;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.pgmux.proxy.config.PemFiles;
import io.pgmux.proxy.config.ProxySetting;
import io.pgmux.proxy.config.TlsCipherSuites;
import io.pgmux.proxy.config.TlsMode;
import io.pgmux.proxy.config.TlsProtocols;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import javax.net.ssl.SSLException;

/**
 * The TLS contexts of the pooler's connections to servers, from PgBouncer's server_tls_ca_file,
 * server_tls_cert_file, server_tls_key_file, server_tls_protocols, server_tls_ciphers and server_tls13_ciphers: one
 * per kind of check (none; the certificate chain; the chain and the host name) for the sslmodes in use.
 *
 * <p>The files are read and checked here, at start and at each RELOAD, a missing or malformed one refused naming
 * its setting; the contexts themselves are built from what was read when a server first accepts TLS (see
 * {@link ServerTlsContext}), so that a proxy whose servers never do — {@code prefer}, PgBouncer's default, against
 * a server without TLS — loads no TLS classes, and opening a connection never reads a file.
 */
public final class ServerTls {
    private final Map<TlsMode, ServerTlsContext> contexts;

    private ServerTls(Map<TlsMode, ServerTlsContext> contexts) {
        this.contexts = contexts;
    }

    /**
     * @param blockingWork where a context is made, when a server first accepts TLS
     * @param modes the sslmodes the proxy's databases use; contexts are made for these only
     * @param caFile PEM certificates trusted by verify-ca and verify-full, or null for the JDK's trusted CAs
     * @param certFile PEM certificate chain presented to servers that ask for one, or null; needs keyFile
     * @param keyFile unencrypted PEM private key of certFile (PKCS#8, PKCS#1 or SEC1), or null
     * @param protocols JDK protocol names, or null for TLS 1.2 and 1.3 (PgBouncer's {@code secure})
     * @param ciphers the suites to offer, or null for Netty's defaults
     * @throws IllegalArgumentException naming the setting whose file cannot be used
     */
    public static ServerTls of(Executor blockingWork, Set<TlsMode> modes, Path caFile, Path certFile, Path keyFile,
            List<String> protocols, TlsCipherSuites ciphers) {
        if ((certFile == null) != (keyFile == null)) {
            throw new IllegalArgumentException("server_tls_cert_file and server_tls_key_file go together:"
                    + " set both or neither");
        }
        requireReadable("server_tls_ca_file", caFile);
        requireReadable("server_tls_cert_file", certFile);
        requireReadable("server_tls_key_file", keyFile);
        Map<TlsMode, ServerTlsContext> contexts = new EnumMap<>(TlsMode.class);
        if (modes.stream().allMatch(mode -> mode == TlsMode.DISABLE)) {
            return new ServerTls(contexts);
        }
        Identity identity = certFile == null ? null : Identity.read(certFile, keyFile);
        X509Certificate[] trusted = caFile == null || modes.stream().noneMatch(TlsMode::verifiesCertificate) ? null
                : PemFiles.certificates(ProxySetting.SERVER_TLS_CA_FILE, caFile).toArray(X509Certificate[]::new);
        ServerTlsContext unverified = null;
        for (TlsMode mode : modes) {
            switch (mode) {
                case DISABLE -> {
                    // no context: TLS is never asked for
                }
                case ALLOW, PREFER, REQUIRE -> {
                    if (unverified == null) {
                        unverified = context(Check.NONE, null, identity, protocols, ciphers, blockingWork);
                    }
                    contexts.put(mode, unverified);
                }
                case VERIFY_CA -> contexts.put(mode, context(Check.CHAIN, trusted, identity, protocols, ciphers,
                        blockingWork));
                case VERIFY_FULL -> contexts.put(mode, context(Check.CHAIN_AND_HOST, trusted, identity, protocols,
                        ciphers, blockingWork));
            }
        }
        return new ServerTls(contexts);
    }

    /** Whether servers can be reached in {@code mode} with the contexts made at start. */
    public boolean supports(TlsMode mode) {
        return mode == TlsMode.DISABLE || contexts.containsKey(mode);
    }

    /** The context for {@code mode}, or null for {@link TlsMode#DISABLE}. */
    ServerTlsContext context(TlsMode mode) {
        ServerTlsContext context = contexts.get(mode);
        if (context == null && mode != TlsMode.DISABLE) {
            throw new IllegalStateException("no TLS context was made for sslmode " + mode);
        }
        return context;
    }

    private enum Check { NONE, CHAIN, CHAIN_AND_HOST }

    /** The client certificate chain of server_tls_cert_file and its key, server_tls_key_file. */
    private record Identity(PrivateKey key, X509Certificate[] chain) {
        static Identity read(Path certFile, Path keyFile) {
            List<X509Certificate> chain = PemFiles.certificates(ProxySetting.SERVER_TLS_CERT_FILE, certFile);
            PrivateKey key = PemFiles.keyOf(chain.get(0), ProxySetting.SERVER_TLS_CERT_FILE, certFile,
                    ProxySetting.SERVER_TLS_KEY_FILE, keyFile);
            return new Identity(key, chain.toArray(X509Certificate[]::new));
        }
    }

    /** @param trusted the CAs of server_tls_ca_file, or null for the JDK's */
    private static ServerTlsContext context(Check check, X509Certificate[] trusted, Identity identity,
            List<String> protocols, TlsCipherSuites ciphers, Executor blockingWork) {
        return new ServerTlsContext(() -> {
            SslContextBuilder builder = SslContextBuilder.forClient()
                    .protocols(protocols == null ? TlsProtocols.SECURE : protocols)
                    .ciphers(ciphers == null ? null : ciphers.suites(), IdentityCipherSuiteFilter.INSTANCE)
                    // Netty checks host names unless told otherwise; libpq does only for verify-full.
                    .endpointIdentificationAlgorithm(check == Check.CHAIN_AND_HOST ? "HTTPS" : null);
            if (check == Check.NONE) {
                builder.trustManager(InsecureTrustManagerFactory.INSTANCE);
            } else if (trusted != null) {
                builder.trustManager(trusted);
            }
            // else the JDK's trusted CAs, as PgBouncer uses the system's without a CA file
            if (identity != null) {
                builder.keyManager(identity.key(), identity.chain());
            }
            try {
                return builder.build();
            } catch (SSLException e) {
                throw new IllegalArgumentException("cannot use the server_tls_* settings: " + e.getMessage(), e);
            }
        }, blockingWork);
    }

    private static void requireReadable(String setting, Path file) {
        if (file != null && !Files.isReadable(file)) {
            throw new IllegalArgumentException(setting + " " + file + " does not exist or cannot be read");
        }
    }
}
