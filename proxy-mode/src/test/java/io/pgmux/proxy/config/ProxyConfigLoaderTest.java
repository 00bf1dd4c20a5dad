package io.pgmux.proxy.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.proxy.server.ServerTarget;
import io.pgmux.proxy.server.ServerTargets;
import io.pgmux.proxy.server.TlsMode;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ProxyConfigLoaderTest {

    @Test
    void iniSectionsKeepKeysInOrderAndIgnoreComments() {
        IniFile ini = IniFile.parse("; comment\n[Databases]\nApp = host=h\n# another\n[pgbouncer]\npool_mode = session\n"
                + "pool_mode = transaction\n");
        assertEquals("host=h", ini.section("databases").get("App"));
        assertEquals("transaction", ini.section("PGBOUNCER").get("pool_mode"));
        assertTrue(ini.section("users").isEmpty());
    }

    @Test
    void iniLineThatIsNoSettingIsRefusedWithItsNumber() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> IniFile.parse("[pgbouncer]\nlisten_port\n"));
        assertEquals("line 2: expected key = value", e.getMessage());
    }

    @Test
    void connectStringNamesHostPortDatabaseAndLogin() {
        ServerTarget t = ServerTargets.fromConnectString("app",
                "host=10.0.0.1 port=5433 dbname=real user=svc password='it''s secret' sslmode=disable");
        assertEquals("10.0.0.1", t.host());
        assertEquals(5433, t.port());
        assertEquals("real", t.dbname());
        assertEquals("svc", t.user());
        assertEquals("it's secret", t.password());
        assertEquals(TlsMode.DISABLE, t.tlsMode());
    }

    @Test
    void connectStringDefaultsToTheEntryNameOnLocalhost() {
        ServerTarget t = ServerTargets.fromConnectString("app", "");
        assertEquals("127.0.0.1", t.host());
        assertEquals(5432, t.port());
        assertEquals("app", t.dbname());
        assertNull(t.user());
        assertEquals(TlsMode.PREFER, t.tlsMode());
    }

    @Test
    void connectStringKeyPgmuxDoesNotKnowIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ServerTargets.fromConnectString("app", "host=h pool_size=5"));
        assertTrue(e.getMessage().contains("unsupported key \"pool_size\""), e.getMessage());
    }

    @Test
    void urlWithoutPasswordInLogsAndWithEncodedUser() {
        ServerTarget t = ServerTargets.fromUrl("postgresql://a%40b:p%3Aw@db.local/app?sslmode=require");
        assertEquals("a@b", t.user());
        assertEquals("p:w", t.password());
        assertEquals(TlsMode.REQUIRE, t.tlsMode());
        assertTrue(!t.toString().contains("p:w"));
    }

    @Test
    void configWithoutDatabasesIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ProxyConfigLoader.configure(IniFile.parse("[pgbouncer]\nlisten_port = 0\n"), Path.of(".")));
        assertEquals("the [databases] section is missing or empty", e.getMessage());
    }

    @Test
    void badPoolSettingIsRefusedWithItsName() {
        RuntimeException e = assertThrows(RuntimeException.class, () -> ProxyConfigLoader.configure(
                IniFile.parse("[databases]\na = host=h\n[pgbouncer]\ndefault_pool_size = lots\n"), Path.of(".")));
        assertTrue(e.getMessage().contains("default_pool_size"), e.getMessage());
    }
}
