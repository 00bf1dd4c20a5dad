package io.pgmux.proxy.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.proxy.config.ProxySettings;
import io.pgmux.proxy.config.TlsCipherSuites;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The client_tls_* values the JDK cannot honour are refused by name, never dropped. */
class ClientTlsConfigTest {
    @TempDir
    Path dir;

    @Test
    void disableOffersNoTlsAndReadsNoFile() {
        ClientTls tls = ClientTls.of(settings("client_tls_sslmode", "disable", "client_tls_cert_file", "missing.crt"));
        assertSame(ClientTls.DISABLED, tls);
        assertFalse(tls.offered());
    }

    @Test
    void unknownSslmodeIsRefusedNamingTheKey() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> settings("client_tls_sslmode", "verify"));
        assertEquals("client_tls_sslmode: unsupported sslmode \"verify\": use disable, allow, prefer, require,"
                + " verify-ca or verify-full", e.getMessage());
    }

    @Test
    void tlsWithoutCertificateAndKeyIsRefusedNamingBoth() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ClientTls.of(settings("client_tls_sslmode", "prefer")));
        assertEquals("client_tls_sslmode prefer needs client_tls_key_file and client_tls_cert_file", e.getMessage());
    }

    @Test
    void certificateFileThatCannotBeReadIsRefusedNamingTheKey() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ClientTls.of(settings(
                "client_tls_sslmode", "require", "client_tls_cert_file", "missing.crt",
                "client_tls_key_file", "missing.key")));
        assertEquals("client_tls_cert_file " + dir.resolve("missing.crt") + " does not exist or cannot be read",
                e.getMessage());
    }

    @Test
    void ecdhCurveOtherThanAutoIsRefusedNamingTheKey() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ClientTls.of(settings("client_tls_ecdhcurve", "prime256v1")));
        assertEquals("client_tls_ecdhcurve \"prime256v1\" is not supported: pgmux takes only auto (the JVM chooses"
                + " the key exchange groups)", e.getMessage());
    }

    @Test
    void dheParamsOtherThanAutoAreRefusedNamingTheKey() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ClientTls.of(settings("client_tls_dheparams", "legacy")));
        assertTrue(e.getMessage().startsWith("client_tls_dheparams \"legacy\" is not supported"), e.getMessage());
    }

    @Test
    void cipherListTakesOpenSslAndJdkNamesWithTls13First() {
        assertEquals(List.of("TLS_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
                        "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"),
                TlsCipherSuites.parse("client", "ECDHE-ECDSA-AES128-GCM-SHA256:TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
                        "TLS_AES_128_GCM_SHA256").suites());
    }

    @Test
    void openSslKeywordsAreRefusedNamingTheKey() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TlsCipherSuites.parse("client", "HIGH:!aNULL", ""));
        assertTrue(e.getMessage().startsWith("client_tls_ciphers: \"HIGH\" is no cipher suite name"), e.getMessage());
    }

    @Test
    void tls13SuiteTheJdkLacksIsRefusedNamingTheKey() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TlsCipherSuites.parse("client", "default", "TLS_AES_128_CCM_8_SHA256"));
        assertEquals("client_tls13_ciphers: cipher suite TLS_AES_128_CCM_8_SHA256 is not supported by this JVM",
                e.getMessage());
    }

    @Test
    void tls12SuiteInTls13CiphersIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TlsCipherSuites.parse("client", "default", "ECDHE-ECDSA-AES128-GCM-SHA256"));
        assertEquals("client_tls13_ciphers: TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 is no TLS 1.3 cipher suite",
                e.getMessage());
    }

    /** Settings as an ini's {@code [pgbouncer]} section writes them, file names relative to the test's directory. */
    private ProxySettings settings(String... namesAndValues) {
        ProxySettings.Builder builder = ProxySettings.builder();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            builder.set(namesAndValues[i], namesAndValues[i + 1], dir);
        }
        return builder.build();
    }
}
