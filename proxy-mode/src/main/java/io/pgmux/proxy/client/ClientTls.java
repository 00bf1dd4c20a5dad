package io.pgmux.proxy.client;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.IdentityCipherSuiteFilter;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.pgmux.proxy.auth.AuthType;
import io.pgmux.proxy.config.PemFiles;
import io.pgmux.proxy.config.ProxySetting;
import io.pgmux.proxy.config.ProxySettings;
import io.pgmux.proxy.config.TlsCipherSuites;
import io.pgmux.proxy.config.TlsMode;
import io.pgmux.proxy.config.TlsProtocols;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * The TLS of the proxy's listener, from PgBouncer's client_tls_* settings, with PgBouncer's meaning of
 * client_tls_sslmode: {@code disable} answers SSLRequest 'N'; {@code allow} and {@code prefer} take TLS when the
 * client asks and plain TCP otherwise; {@code require} refuses a client that did not ask for TLS ("SSL
 * required"); {@code verify-ca} and {@code verify-full} also demand a client certificate signed by
 * client_tls_ca_file (the JDK's trusted CAs without one). Below verify-ca no client certificate is asked for.
 *
 * <p>Files are read and checked when it is built (at start and on every RELOAD, so new clients get rotated
 * certificates while connected ones keep theirs), a missing, malformed or mismatched one refused naming its key.
 * What the JDK cannot honour is refused by name: client_tls_ecdhcurve and client_tls_dheparams take only their
 * default, {@code auto} (the JDK picks the curves and a 2048-bit DH group itself; setting them takes JDK-wide
 * system properties).
 *
 * <p>As in PgBouncer, TLS applies to TCP clients only: over the Unix socket SSLRequest is answered 'N' and no mode
 * requires TLS (the socket file's permissions guard it, and libpq never asks for TLS there).
 */
public final class ClientTls {
    /** TLS is never offered. */
    public static final ClientTls DISABLED = new ClientTls(TlsMode.DISABLE, null);
    private static final String AUTO = "auto";

    private final TlsMode mode;
    private final SslContext context;

    private ClientTls(TlsMode mode, SslContext context) {
        this.mode = mode;
        this.context = context;
    }

    /**
     * TLS with a context made by the caller, in {@code mode} (disable taken as prefer: the context is there to be
     * used).
     */
    public static ClientTls of(TlsMode mode, SslContext context) {
        Objects.requireNonNull(context, "context");
        return new ClientTls(mode == TlsMode.DISABLE ? TlsMode.PREFER : mode, context);
    }

    /**
     * From the client_tls_* settings and auth_type; reads the files.
     *
     * @throws IllegalArgumentException naming the setting that cannot be used
     */
    public static ClientTls of(ProxySettings settings) {
        TlsMode mode = settings.get(ProxySetting.CLIENT_TLS_SSLMODE);
        requireAuto(settings, ProxySetting.CLIENT_TLS_ECDHCURVE);
        requireAuto(settings, ProxySetting.CLIENT_TLS_DHEPARAMS);
        List<String> protocols = TlsProtocols.parse(ProxySetting.CLIENT_TLS_PROTOCOLS.configName(),
                settings.get(ProxySetting.CLIENT_TLS_PROTOCOLS));
        TlsCipherSuites ciphers = TlsSetupFailure.cipherSuites(settings);
        if (settings.get(ProxySetting.AUTH_TYPE) == AuthType.CERT && !mode.verifiesCertificate()) {
            throw new IllegalArgumentException("auth_type cert takes the user name from the client certificate:"
                    + " it needs client_tls_sslmode verify-ca or verify-full, not " + mode);
        }
        if (mode == TlsMode.DISABLE) {
            return DISABLED;
        }
        Path certFile = settings.get(ProxySetting.CLIENT_TLS_CERT_FILE);
        Path keyFile = settings.get(ProxySetting.CLIENT_TLS_KEY_FILE);
        if (certFile == null || keyFile == null) {
            throw new IllegalArgumentException("client_tls_sslmode " + mode
                    + " needs client_tls_key_file and client_tls_cert_file");
        }
        List<X509Certificate> chain = TlsSetupFailure.logged("certificate file \"" + certFile + "\"",
                () -> PemFiles.certificates(ProxySetting.CLIENT_TLS_CERT_FILE, certFile));
        PrivateKey key = TlsSetupFailure.logged("private key file \"" + keyFile + "\"",
                () -> PemFiles.keyOf(chain.get(0), ProxySetting.CLIENT_TLS_CERT_FILE, certFile,
                        ProxySetting.CLIENT_TLS_KEY_FILE, keyFile));
        SslContextBuilder builder = SslContextBuilder.forServer(key, chain)
                .sslProvider(SslProvider.JDK)
                .protocols(protocols)
                .ciphers(ciphers.suites(), IdentityCipherSuiteFilter.INSTANCE)
                // as PostgreSQL: a client offering ALPN protocols but not postgresql is refused
                .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                        ApplicationProtocolConfig.SelectorFailureBehavior.FATAL_ALERT,
                        ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, DirectTls.ALPN_PROTOCOL));
        Path caFile = settings.get(ProxySetting.CLIENT_TLS_CA_FILE);
        if (mode.verifiesCertificate()) {
            builder.clientAuth(ClientAuth.REQUIRE);
        } else if (caFile != null) {
            // as PgBouncer: below verify-ca a client is asked for its certificate too (an hba cert line reads it),
            // and one it gives must pass the CA
            builder.clientAuth(ClientAuth.OPTIONAL);
        }
        if (caFile != null) {
            builder.trustManager(TlsSetupFailure.logged("CA",
                    () -> PemFiles.certificates(ProxySetting.CLIENT_TLS_CA_FILE, caFile)));
        }
        try {
            return new ClientTls(mode, builder.build());
        } catch (SSLException | IllegalArgumentException e) {
            IllegalArgumentException refused = new IllegalArgumentException("cannot use the client_tls_* settings: "
                    + e.getMessage(), e);
            TlsSetupFailure.log(refused);
            throw refused;
        }
    }

    /** Whether TLS is configured at all. */
    boolean offered() {
        return context != null;
    }

    /** Whether SSLRequest from {@code client} is answered 'S'. */
    boolean offeredTo(Channel client) {
        return offered() && overTcp(client);
    }

    /** Whether {@code client}, which did not ask for TLS, is refused. */
    boolean requiredOf(Channel client) {
        return mode.requiresTls() && overTcp(client);
    }

    private static boolean overTcp(Channel client) {
        return client.remoteAddress() instanceof InetSocketAddress;
    }

    SslHandler newHandler(ByteBufAllocator alloc) {
        return context.newHandler(alloc);
    }

    /**
     * The common name (CN) of the certificate the client presented over {@code channel}'s TLS, or null without TLS,
     * certificate or CN.
     */
    static String certificateName(Channel channel) {
        SslHandler ssl = channel.pipeline().get(SslHandler.class);
        if (ssl == null) {
            return null;
        }
        try {
            Certificate[] peer = ssl.engine().getSession().getPeerCertificates();
            if (peer.length == 0 || !(peer[0] instanceof X509Certificate leaf)) {
                return null;
            }
            String commonName = null;
            // the RDNs come last-written first: the CN nearest the start of the name wins
            for (Rdn rdn : new LdapName(leaf.getSubjectX500Principal().getName()).getRdns()) {
                if (rdn.getType().equalsIgnoreCase("CN")) {
                    commonName = String.valueOf(rdn.getValue());
                }
            }
            return commonName;
        } catch (SSLPeerUnverifiedException | InvalidNameException e) {
            return null;
        }
    }

    private static void requireAuto(ProxySettings settings, ProxySetting setting) {
        String value = settings.get(setting);
        if (!value.strip().toLowerCase(Locale.ROOT).equals(AUTO)) {
            throw new IllegalArgumentException(setting.configName() + " \"" + value + "\" is not supported: pgmux"
                    + " takes only auto (the JVM chooses the key exchange groups)");
        }
    }
}
