package io.pgmux.proxy.config;

import io.netty.handler.ssl.CipherSuiteConverter;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * PgBouncer's client_tls_ciphers and client_tls13_ciphers (and server_tls_ciphers, server_tls13_ciphers, read
 * alike) as the JDK's cipher suite names. client_tls_ciphers
 * takes the shortcuts {@code default}, {@code secure}, {@code fast}, {@code normal} (the JDK's defaults, as
 * PgBouncer takes OpenSSL's) and {@code all} (every suite the JDK supports), or a list of suite names separated
 * by colons, commas or spaces, in OpenSSL's spelling ({@code ECDHE-ECDSA-AES256-GCM-SHA384}) or the JDK's.
 * OpenSSL's keywords and operators ({@code HIGH}, {@code !aNULL}, {@code @STRENGTH}) have no JDK equivalent and
 * are refused, as is a suite the JDK does not support: a list is never filtered silently. client_tls13_ciphers
 * lists TLS 1.3 suites; left empty, TLS 1.3 takes the shortcut's suites, or the TLS 1.3 names in the list.
 *
 * <p>The JDK's lists are asked for (which initialises its default TLS context, a few hundred classes) only where
 * a value names suites, to check them at once; a shortcut alone is resolved when a context is built.
 */
public final class TlsCipherSuites {
    private static final Set<String> JDK_DEFAULT_SHORTCUTS = Set.of("default", "secure", "fast", "normal");

    private final String side;
    private final String ciphers;
    private final String tls13Ciphers;

    private TlsCipherSuites(String side, String ciphers, String tls13Ciphers) {
        this.side = side;
        this.ciphers = ciphers;
        this.tls13Ciphers = tls13Ciphers;
    }

    /**
     * Checks the two values; suites they name are checked against the JDK's now.
     *
     * @param side {@code client} or {@code server}: whose {@code <side>_tls_ciphers} and
     *     {@code <side>_tls13_ciphers} these are
     * @throws IllegalArgumentException naming the setting and the value the JDK cannot honour
     */
    public static TlsCipherSuites parse(String side, String ciphers, String tls13Ciphers) {
        TlsCipherSuites parsed = new TlsCipherSuites(side, ciphers, tls13Ciphers);
        String shortcut = ciphers.strip().toLowerCase(Locale.ROOT);
        boolean namesSuites = !tls13Ciphers.isBlank()
                || !JDK_DEFAULT_SHORTCUTS.contains(shortcut) && !shortcut.equals("all");
        if (namesSuites) {
            parsed.suites();
        }
        return parsed;
    }

    /**
     * The suites to enable, TLS 1.3's first.
     *
     * @throws IllegalArgumentException naming the setting and the value the JDK cannot honour
     */
    public List<String> suites() {
        String ciphersKey = side + "_tls_ciphers";
        String tls13Key = side + "_tls13_ciphers";
        SSLParameters defaults;
        SSLParameters supported;
        try {
            SSLContext jdk = SSLContext.getDefault();
            defaults = jdk.getDefaultSSLParameters();
            supported = jdk.getSupportedSSLParameters();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK offers no TLS", e);
        }
        List<String> supportedNames = Arrays.asList(supported.getCipherSuites());
        String shortcut = ciphers.strip().toLowerCase(Locale.ROOT);
        List<String> listed;
        if (JDK_DEFAULT_SHORTCUTS.contains(shortcut)) {
            listed = Arrays.asList(defaults.getCipherSuites());
        } else if (shortcut.equals("all")) {
            listed = supportedNames;
        } else {
            listed = named(ciphersKey, ciphers, supportedNames);
        }
        List<String> tls13 = tls13Ciphers.isBlank() ? listed.stream().filter(TlsCipherSuites::isTls13).toList()
                : named(tls13Key, tls13Ciphers, supportedNames);
        for (String suite : tls13) {
            if (!isTls13(suite)) {
                throw new IllegalArgumentException(tls13Key + ": " + suite + " is no TLS 1.3 cipher suite");
            }
        }
        List<String> suites = new ArrayList<>(tls13);
        listed.stream().filter(s -> !isTls13(s)).forEach(suites::add);
        if (suites.isEmpty()) {
            throw new IllegalArgumentException(ciphersKey + " \"" + ciphers + "\" and " + tls13Key + " \""
                    + tls13Ciphers + "\" leave no cipher suite");
        }
        return List.copyOf(suites);
    }

    private static List<String> named(String key, String list, List<String> supported) {
        List<String> suites = new ArrayList<>();
        for (String token : list.strip().split("[:,\\s]+")) {
            String suite = token.startsWith("TLS_") || token.startsWith("SSL_") ? token
                    : CipherSuiteConverter.toJava(token, "TLS");
            if (suite == null) {
                throw new IllegalArgumentException(key + ": \"" + token + "\" is no cipher suite name; pgmux takes"
                        + " a list of suite names (OpenSSL's or the JDK's), or a shortcut, not OpenSSL's keywords");
            }
            if (!supported.contains(suite)) {
                throw new IllegalArgumentException(key + ": cipher suite " + token + " is not supported by this JVM");
            }
            if (!suites.contains(suite)) {
                suites.add(suite);
            }
        }
        return suites;
    }

    /** TLS 1.3's suites are named alike by OpenSSL and the JDK, and name no key exchange. */
    private static boolean isTls13(String suite) {
        return suite.startsWith("TLS_AES_") || suite.startsWith("TLS_CHACHA20_");
    }
}
