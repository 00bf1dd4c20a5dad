package io.pgmux.proxy.config;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.ConfigException;
import io.pgmux.core.config.ConfigKey;
import io.pgmux.proxy.config.ProxySetting.Scope;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The table of settings, checked row by row. */
class ProxySettingTest {
    private static final Path BASE = Path.of(".");

    @Test
    void everyPoolSettingOfCoreIsAGlobalSetting() {
        for (ConfigKey key : ConfigKey.values()) {
            ProxySetting setting = ProxySetting.global(key.pgbouncerName());
            assertNotNull(setting, key.pgbouncerName());
            assertEquals(key, setting.poolKey());
        }
    }

    @Test
    void aProxyConfiguredWithNothingHasEveryDefaultOfTheTable() {
        ProxySettings settings = ProxySettings.builder().build();
        for (ProxySetting s : ProxySetting.all(Scope.GLOBAL)) {
            assertEquals(s.defaultText(), settings.text(s), s.configName());
        }
    }

    @Test
    void aKeyTakenOnlyGloballyIsRefusedInADatabaseEntryByName() {
        for (ProxySetting s : ProxySetting.all(Scope.GLOBAL)) {
            if (s.takenIn(Scope.DATABASE)) {
                continue;
            }
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> DatabaseEntry.parse("app", s.configName() + "=1"), s.configName());
            assertTrue(e.getMessage().startsWith("database app: unsupported key \"" + s.configName()
                    + "\" (supported: "), e.getMessage());
        }
    }

    @Test
    void aKeyTakenOnlyGloballyIsRefusedInAUserEntryByName() {
        for (ProxySetting s : ProxySetting.all(Scope.GLOBAL)) {
            if (s.takenIn(Scope.USER)) {
                continue;
            }
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> UserEntry.parse("bob", s.configName() + "=1"), s.configName());
            assertTrue(e.getMessage().startsWith("user bob: "), e.getMessage());
            assertTrue(e.getMessage().contains("\"" + s.configName() + "\""), e.getMessage());
        }
    }

    @Test
    void everyKeyAnEntryTakesIsRead() {
        for (ProxySetting s : ProxySetting.values()) {
            String pair = s.configName() + "=" + sample(s);
            if (s.takenIn(Scope.DATABASE)) {
                assertDoesNotThrow(() -> DatabaseEntry.parse("app", pair), pair);
            }
            if (s.takenIn(Scope.USER)) {
                assertEquals(1, UserEntry.parse("bob", pair).poolSettings().size(), pair);
            }
        }
    }

    @Test
    void anUnknownGlobalSettingNamesTheNearest() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> ProxySettings.builder().set("listen_prot", "6432", BASE));
        assertEquals("unknown setting 'listen_prot'; did you mean 'listen_port'?", e.getMessage());
        assertEquals("listen_prot", e.setting());
    }

    @Test
    void anUnknownEntryKeyNamesTheNearestTheEntryTakes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DatabaseEntry.parse("app", "host=h pool_sise=5"));
        assertTrue(e.getMessage().startsWith("database app: unknown key 'pool_sise'; did you mean 'pool_size'? "
                + "(supported: host, port, dbname, user, password, sslmode, "), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> UserEntry.parse("bob", "pool_mdoe=session"));
        assertEquals("user bob: unknown key 'pool_mdoe'; did you mean 'pool_mode'? (supported: client_idle_timeout, "
                + "idle_transaction_timeout, query_timeout, transaction_timeout, pool_mode, pool_size, "
                + "reserve_pool_size, query_wait_timeout, max_user_connections)", e.getMessage());
    }

    @Test
    void aKeyOfPgBouncersThatPgmuxDoesNotTakeIsKnownButNotTaken() {
        assertNotNull(ProxySetting.named("logfile"));
        assertNull(ProxySetting.global("logfile"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DatabaseEntry.parse("app", "load_balance_hosts=disable"));
        assertTrue(e.getMessage().startsWith("database app: unsupported key \"load_balance_hosts\" (supported: "),
                e.getMessage());
    }

    @Test
    void poolSettingsAreKnownUnderCoresOtherNamesToo() {
        assertEquals(ProxySetting.DEFAULT_POOL_SIZE, ProxySetting.global("maximumPoolSize"));
        ProxySettings settings = ProxySettings.builder().set("serverIdleTimeout", "1500", BASE).build();
        assertEquals("1500ms", settings.text(ProxySetting.SERVER_IDLE_TIMEOUT), "milliseconds under a camelCase name");
    }

    @Test
    void reloadTakesTheReloadableSettingsAndNamesTheOthers() {
        ProxySettings running = ProxySettings.builder().build();
        ProxySettings fresh = ProxySettings.builder().set("listen_port", "7000", BASE).set("admin_users", "bob", BASE)
                .set("default_pool_size", "3", BASE).build();
        assertEquals(List.of(ProxySetting.LISTEN_PORT), running.restartOnlyChanges(fresh));
        ProxySettings reloaded = running.reloaded(fresh);
        assertEquals(6432, reloaded.<Integer>get(ProxySetting.LISTEN_PORT));
        assertEquals(List.of("bob"), reloaded.get(ProxySetting.ADMIN_USERS));
        assertEquals(3, reloaded.pool().defaultPoolSize());
    }

    @Test
    void fileSettingsAreRelativeToTheConfigurationFile() {
        Path dir = Path.of("/etc/pgmux");
        ProxySettings settings = ProxySettings.builder().set("auth_file", "userlist.txt", dir)
                .set("server_tls_ca_file", "", dir).build();
        assertEquals(dir.resolve("userlist.txt"), settings.get(ProxySetting.AUTH_FILE));
        assertNull(settings.get(ProxySetting.SERVER_TLS_CA_FILE), "empty is not set");
    }

    @Test
    void aValueThatCannotBeUsedIsRefusedNamingTheKey() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ProxySettings.builder().set("listen_port", "many", BASE));
        assertEquals("listen_port must be a whole number, not \"many\"", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ProxySettings.builder().set("threads", "-1", BASE));
        assertEquals("threads must be 0 or more, not -1", e.getMessage());
    }

    private static String sample(ProxySetting s) {
        return switch (s.type()) {
            case POOL -> s.poolKey().type() == ConfigKey.Type.POOL_MODE ? "session" : "1";
            case TLS_MODE -> "disable";
            case PIN_SESSION_STATE -> "off";
            default -> "1";
        };
    }
}
