package io.pgmux.proxy.config;

import io.pgmux.core.config.ConfigException;
import io.pgmux.core.config.ConfigKey;
import io.pgmux.proxy.DatabaseEntry;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
            // fleet and fleet_max_servers are taken together only
            String pair = s == ProxySetting.FLEET || s == ProxySetting.FLEET_MAX_SERVERS
                    ? "fleet=f fleet_max_servers=1" : s.configName() + "=" + sample(s);
            if (s.takenIn(Scope.DATABASE)) {
                // the keys of read routing go with it
                String entry = s.configName().startsWith("replica_") || s == ProxySetting.READ_YOUR_WRITES
                        ? "read_routing=replicas " + pair : pair;
                assertDoesNotThrow(() -> DatabaseEntry.parse("app", entry), entry);
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
                + "idle_transaction_timeout, query_timeout, transaction_timeout, max_user_client_connections, pool_mode, "
                + "pool_size, "
                + "reserve_pool_size, query_wait_timeout, max_user_connections)", e.getMessage());
    }

    @Test
    void aKeyOfPgBouncersThatPgmuxDoesNotTakeIsKnownButNotTaken() {
        assertNotNull(ProxySetting.named("auth_ldap_options"));
        assertNull(ProxySetting.global("auth_ldap_options"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DatabaseEntry.parse("app", "pidfile=pgbouncer.pid"));
        assertTrue(e.getMessage().startsWith("database app: unsupported key \"pidfile\" (supported: "),
                e.getMessage());
    }

    @Test
    void poolSettingsAreKnownUnderCoresOtherNamesToo() {
        assertEquals(ProxySetting.DEFAULT_POOL_SIZE, ProxySetting.global("maximumPoolSize"));
        ProxySettings settings = ProxySettings.builder().set("serverIdleTimeout", "1500", BASE).build();
        assertEquals("1.5", settings.text(ProxySetting.SERVER_IDLE_TIMEOUT),
                "milliseconds under a camelCase name, shown in seconds as PgBouncer's SHOW CONFIG does");
        assertEquals("1", ProxySettings.builder().set("server_reset_query_always", "1", BASE).build()
                .text(ProxySetting.SERVER_RESET_QUERY_ALWAYS), "a switch as 1 or 0");
        assertEquals("3600", ProxySetting.SERVER_LIFETIME.defaultText());
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

    @Test
    void maxPacketSizeBelowWhatALoginNeedsIsRefusedWithTheReason() {
        assertEquals("max_packet_size must be 1024 or more, not 1: a smaller limit refuses the messages of every"
                + " login, the admin console's too", refusal("max_packet_size", "1"));
        assertTrue(refusal("max_packet_size", "0").startsWith("max_packet_size must be 1024 or more, not 0"));
        assertDoesNotThrow(() -> ProxySettings.builder().set("max_packet_size", "1024", BASE));
    }

    @Test
    void statsPeriodBelowOneSecondIsRefusedWithTheReason() {
        assertEquals("stats_period must be 1 second or more, not 0: it is how often the averages are computed and"
                + " logged", refusal("stats_period", "0"));
        assertTrue(refusal("stats_period", "0.3").startsWith("stats_period must be 1 second or more, not 0.3"));
    }

    @Test
    void listenPortOutsideTheTcpRangeAndScramIterationsBelowOneAreRefused() {
        assertEquals("listen_port must be 0 (a free port) to 65535, not 70000", refusal("listen_port", "70000"));
        assertEquals("listen_port must be 0 (a free port) to 65535, not -1", refusal("listen_port", "-1"));
        assertEquals("scram_iterations must be 1 or more, not 0", refusal("scram_iterations", "0"));
    }

    @Test
    void aLogfileOrPidfileThatIsNoRegularFileIsRefused(@TempDir Path dir) throws Exception {
        assertEquals("logfile must be a regular file or one not made yet, not /proc/self/mem: it is a file of the"
                + " kernel's proc file system", refusal("logfile", "/proc/self/mem"));
        assertEquals("logfile must be a regular file or one not made yet, not /dev/null: it is a device or other"
                + " special file", refusal("logfile", "/dev/null"));
        assertEquals("pidfile must be a regular file or one not made yet, not " + dir + ": it is a directory",
                refusal("pidfile", dir.toString()));
        Path existing = Files.writeString(dir.resolve("pgmux.log"), "earlier lines\n");
        assertEquals(existing, ProxySettings.builder().set("logfile", existing.toString(), BASE).build()
                .get(ProxySetting.LOGFILE));
        assertDoesNotThrow(() -> ProxySettings.builder().set("logfile", dir.resolve("new.log").toString(), BASE));
    }

    @Test
    void consoleSetOfAValueOutOfRangeIsRefusedAndTheSettingsKept() {
        ProxySettings settings = ProxySettings.builder().build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> settings.with(ProxySetting.MAX_PACKET_SIZE, "1", BASE));
        assertTrue(e.getMessage().startsWith("max_packet_size must be 1024 or more"), e.getMessage());
        assertEquals("2147483647", settings.text(ProxySetting.MAX_PACKET_SIZE));
    }

    private static String refusal(String key, String value) {
        return assertThrows(IllegalArgumentException.class, () -> ProxySettings.builder().set(key, value, BASE))
                .getMessage();
    }

    @Test
    void transportIsEpollByDefaultAndTakesIoUringOrNio() {
        assertEquals(TransportKind.EPOLL, ProxySettings.builder().build().get(ProxySetting.TRANSPORT));
        assertEquals(TransportKind.IO_URING,
                ProxySettings.builder().set("transport", "io_uring", BASE).build().get(ProxySetting.TRANSPORT));
        assertEquals(TransportKind.NIO,
                ProxySettings.builder().set("transport", "NIO", BASE).build().get(ProxySetting.TRANSPORT));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ProxySettings.builder().set("transport", "kqueue", BASE));
        assertEquals("transport must be epoll, io_uring or nio, not \"kqueue\"", e.getMessage());
    }

    @Test
    void metricsListenIsOffByDefaultAndTakesHostAndPort() {
        assertNull(ProxySettings.builder().build().get(ProxySetting.METRICS_LISTEN));
        ProxySettings settings = ProxySettings.builder().set("metrics_listen", "*:9127", BASE).build();
        InetSocketAddress address = settings.get(ProxySetting.METRICS_LISTEN);
        assertEquals("0.0.0.0", address.getHostString());
        assertEquals(9127, address.getPort());
        assertEquals("[::1]:0", ProxySettings.builder().set("metrics_listen", "[::1]:0", BASE).build()
                .text(ProxySetting.METRICS_LISTEN));
        for (String bad : new String[] {"9127", "localhost", ":9127", "localhost:http", "localhost:65536"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ProxySettings.builder().set("metrics_listen", bad, BASE));
            assertEquals("metrics_listen must be host:port (port 0 to 65535), or empty for off, not \"" + bad + "\"",
                    e.getMessage());
        }
    }

    private static String sample(ProxySetting s) {
        return switch (s.type()) {
            case POOL -> s.poolKey().type() == ConfigKey.Type.POOL_MODE ? "session" : "1";
            case TLS_MODE -> "disable";
            case PIN_SESSION_STATE -> "off";
            case TEXT -> s.defaultText().isEmpty() ? "1" : "'" + s.defaultText().replace("'", "''") + "'";
            default -> "1";
        };
    }

    @Test
    void keyNamesAreTakenInAnyCase() {
        ProxySettings settings = ProxySettings.builder().set("Pool_Mode", "statement", BASE)
                .set("QUERY_TIMEOUT", "1.5", BASE).build();
        assertEquals("statement", settings.text(ProxySetting.POOL_MODE));
        assertEquals("1.5", settings.text(ProxySetting.QUERY_TIMEOUT));
        assertEquals("user bob: query_timeout must be 0 or more seconds, not \"-1\"", assertThrows(
                IllegalArgumentException.class, () -> UserEntry.parse("bob", "Query_Timeout=-1")).getMessage());
    }

    /** Keys with no meaning in pgmux are taken, so that PgBouncer's ini starts, and SHOW CONFIG shows them. */
    @Test
    void pgBouncersLowLevelKeysAreTakenAndShown() {
        ProxySettings settings = ProxySettings.builder().set("pkt_buf", "8192", BASE).set("sbuf_loopcnt", "10", BASE)
                .set("server_round_robin", "1", BASE).set("track_extra_parameters", "IntervalStyle,search_path", BASE)
                .set("dns_max_ttl", "30", BASE).set("dns_nxdomain_ttl", "20", BASE)
                .set("dns_zone_check_period", "60", BASE).set("resolv_conf", "/etc/resolv.conf", BASE)
                .set("cancel_wait_timeout", "3", BASE).set("suspend_timeout", "4", BASE).build();
        assertEquals("8192", settings.text(ProxySetting.PKT_BUF));
        assertEquals("10", settings.text(ProxySetting.SBUF_LOOPCNT));
        assertEquals("1", settings.text(ProxySetting.SERVER_ROUND_ROBIN));
        assertEquals("IntervalStyle,search_path", settings.text(ProxySetting.TRACK_EXTRA_PARAMETERS));
        assertEquals("30", settings.text(ProxySetting.DNS_MAX_TTL));
        assertEquals("20", settings.text(ProxySetting.DNS_NXDOMAIN_TTL));
        assertEquals("60", settings.text(ProxySetting.DNS_ZONE_CHECK_PERIOD));
        assertEquals("/etc/resolv.conf", settings.text(ProxySetting.RESOLV_CONF));
        assertEquals("3", settings.text(ProxySetting.CANCEL_WAIT_TIMEOUT));
        assertEquals("4", settings.text(ProxySetting.SUSPEND_TIMEOUT));
    }
}
