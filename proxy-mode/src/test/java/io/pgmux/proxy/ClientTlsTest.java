package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Clients that ask for TLS get it when the proxy has a certificate, and are told 'N' otherwise. */
@PostgresTest
class ClientTlsTest {
    private final TestDatabase db;

    ClientTlsTest(TestDatabase db) {
        this.db = db;
    }

    @Test
    void clientRequiringTlsIsServedOverTls(@TempDir Path dir) throws Exception {
        SslContext tls = selfSigned(dir);
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.clientTls(tls))) {
            try (Connection c = ProxyFixture.connect(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD,
                    requireTls());
                 Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 11")) {
                rs.next();
                assertEquals(11, rs.getInt(1));
            }
        }
    }

    @Test
    void clientRequiringTlsIsRefusedWithoutACertificate() {
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION)) {
            SQLException e = assertThrows(SQLException.class, () -> ProxyFixture.connect(proxy, db.name(),
                    ProxyFixture.USER, ProxyFixture.PASSWORD, requireTls()));
            assertTrue(e.getMessage().contains("does not support SSL"), e.getMessage());
        }
    }

    private static Properties requireTls() {
        Properties p = new Properties();
        p.setProperty("sslmode", "require");
        return p;
    }

    /** A throwaway certificate made by the JDK's keytool. */
    private static SslContext selfSigned(Path dir) throws Exception {
        Path store = dir.resolve("proxy.p12");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        Process p = new ProcessBuilder(keytool, "-genkeypair", "-alias", "proxy", "-keyalg", "EC", "-groupname",
                "secp256r1", "-dname", "CN=localhost", "-validity", "2", "-storetype", "PKCS12", "-keystore",
                store.toString(), "-storepass", "changeit").redirectErrorStream(true).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0,
                new String(p.getInputStream().readAllBytes()));
        KeyStore keyStore = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            keyStore.load(in, "changeit".toCharArray());
        }
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(keyStore, "changeit".toCharArray());
        return SslContextBuilder.forServer(keys).build();
    }
}
