package io.pgmux.proxy.config;

import io.pgmux.proxy.DatabaseEntry;
import io.pgmux.proxy.ProxyBuilder;
import io.pgmux.proxy.ProxyConfigLoader;
import io.pgmux.proxy.server.LoadBalanceHosts;
import io.pgmux.proxy.server.ServerHost;
import io.pgmux.proxy.server.ServerTarget;
import io.pgmux.proxy.server.ServerTargets;
import io.pgmux.proxy.server.TargetSessionAttrs;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProxyConfigLoaderTest {

    @Test
    void iniSectionsKeepKeysInOrderAndIgnoreComments() {
        IniFile ini = IniFile.parse("; comment\n[Databases]\nApp = host=h\n# another\n[pgbouncer]\npool_mode = session\n"
                + "pool_mode = transaction\n");
        assertEquals("host=h", ini.section("databases").get("App"));
        assertEquals("transaction", ini.section("PGBOUNCER").get("pool_mode"));
        assertTrue(ini.section("users").isEmpty());
    }

    /** A deliberate difference: PgBouncer 1.25.2 puts the first block's settings back to their defaults. */
    @Test
    void aPgbouncerSectionOpenedAgainAddsToTheFirst() {
        IniFile ini = IniFile.parse("[pgbouncer]\nlisten_port = 7432\nmax_client_conn = 77\n[databases]\napp =\n"
                + "[pgbouncer]\ndefault_pool_size = 42\nmax_client_conn = 78\n");
        assertEquals(Map.of("listen_port", "7432", "max_client_conn", "78", "default_pool_size", "42"),
                Map.copyOf(ini.section("pgbouncer")));
    }

    @Test
    void iniLineThatIsNoSettingIsRefusedWithItsNumber() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> IniFile.parse("[pgbouncer]\nlisten_port\n"));
        assertEquals("line 2: expected key = value", e.getMessage());
    }

    @Test
    void connectStringNamesHostPortDatabaseAndLogin() {
        ServerTarget t = DatabaseEntry.parse("app",
                "host=10.0.0.1 port=5433 dbname=real user=svc password='it''s secret' sslmode=disable").target();
        assertEquals("10.0.0.1", t.host());
        assertEquals(5433, t.port());
        assertEquals("real", t.dbname());
        assertEquals("svc", t.user());
        assertEquals("it's secret", t.password());
        assertEquals(TlsMode.DISABLE, t.tlsMode());
    }

    @Test
    void connectStringDefaultsToTheEntryNameOnTheUnixSocketOfUnixSocketDir() {
        ServerTarget t = DatabaseEntry.parse("app", "").target();
        assertNull(t.host(), "no host: SHOW DATABASES shows NULL, as PgBouncer");
        assertEquals(List.of(ServerHost.unset(5432)), t.hosts());
        assertEquals(List.of(new ServerHost("/run/pg", 5432, false)), t.withSocketDirectory("/run/pg").hosts());
        assertEquals(5432, t.port());
        assertEquals("app", t.dbname());
        assertNull(t.user());
        assertNull(t.tlsMode(), "the proxy's server_tls_sslmode applies");
    }

    @Test
    void connectStringPoolSettingsOverrideTheGlobalOnesUnderTheirNames() {
        assertEquals(Map.of("default_pool_size", "5", "min_pool_size", "1", "reserve_pool_size", "2",
                        "pool_mode", "transaction", "max_db_connections", "9"),
                DatabaseEntry.parse("app", "host=h pool_size=5 min_pool_size=1 reserve_pool=2"
                        + " pool_mode=transaction max_db_connections=9").poolSettings());
        assertEquals(Map.of("reserve_pool_size", "3"),
                DatabaseEntry.parse("app", "reserve_pool_size=3").poolSettings(), "PgBouncer's own spelling too");
        assertEquals("h", DatabaseEntry.parse("app", "host=h pool_size=5").target().host());
    }

    @Test
    void aHostListTakesOnePortForAllHostsOrOnePerHost() {
        assertEquals(List.of(new ServerHost("a", 6000), new ServerHost("b", 6000), new ServerHost("/run/pg", 6000)),
                DatabaseEntry.parse("app", "host=a,b,/run/pg port=6000").target().hosts());
        assertEquals(List.of(new ServerHost("a", 5432), new ServerHost("b", 5433)),
                DatabaseEntry.parse("app", "host=a,b port=5432,5433").target().hosts());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DatabaseEntry.parse("app", "host=a,b,c port=5432,5433"));
        assertEquals("database app: port lists 2 ports for 3 hosts: give one port for all hosts or one per host",
                e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> DatabaseEntry.parse("app", "host=a,,c"));
        assertEquals("database app: empty host name", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> DatabaseEntry.parse("app", "host=a port=x"));
        assertEquals("database app: port must be a number, not \"x\"", e.getMessage());
    }

    @Test
    void aDatabaseEntryTakesLoadBalanceHostsAndTargetSessionAttrs() {
        ServerTarget t = DatabaseEntry.parse("app", "host=a,b load_balance_hosts=disable "
                + "target_session_attrs=read-write").target();
        assertEquals(LoadBalanceHosts.DISABLE, t.loadBalanceHosts());
        assertEquals(TargetSessionAttrs.READ_WRITE, t.targetSessionAttrs());
        ServerTarget defaults = DatabaseEntry.parse("app", "host=a,b").target();
        assertEquals(LoadBalanceHosts.ROUND_ROBIN, defaults.loadBalanceHosts());
        assertEquals(TargetSessionAttrs.ANY, defaults.targetSessionAttrs());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DatabaseEntry.parse("app", "load_balance_hosts=random"));
        assertEquals("database app: unsupported load_balance_hosts \"random\": use round-robin or disable",
                e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> DatabaseEntry.parse("app", "target_session_attrs=rw"));
        assertEquals("database app: unsupported target_session_attrs \"rw\": use any, read-write, read-only, "
                + "primary, standby or prefer-standby", e.getMessage());
    }

    @Test
    void aDatabaseEntryTakesPinSessionStateAndRefusesAnUnknownValue() {
        assertEquals(Map.of("pin_session_state", "error"),
                DatabaseEntry.parse("app", "host=h pin_session_state=error").poolSettings());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DatabaseEntry.parse("app", "pin_session_state=sometimes"));
        assertEquals("database app: pin_session_state must be on, off or error, not \"sometimes\"", e.getMessage());
    }

    @Test
    void aDatabaseEntryTakesItsOwnAuthUserAuthQueryAndAuthDbname() {
        assertEquals(Map.of("auth_user", "lookup", "auth_query", "SELECT usename, passwd FROM pgbouncer.users($1)",
                        "auth_dbname", "authdb"),
                DatabaseEntry.parse("app", "host=h auth_user=lookup auth_query='SELECT usename, passwd FROM"
                        + " pgbouncer.users($1)' auth_dbname=authdb").poolSettings());
    }

    @Test
    void connectStringPoolSettingThatIsNoNumberIsRefusedAsWritten() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DatabaseEntry.parse("app", "pool_size=lots"));
        assertEquals("database app: pool_size must be a whole number of 0 or more, not \"lots\"", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> DatabaseEntry.parse("app", "pool_mode=fast"));
        assertEquals("database app: pool_mode must be one of session, transaction, statement, not \"fast\"",
                e.getMessage());
    }

    @Test
    void usersKeyNobodyKnowsIsRefusedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ProxyConfigLoader.configure(
                IniFile.parse("[databases]\na = host=h\n[users]\nbob = max_db_connections=5\n"), Path.of(".")));
        assertTrue(e.getMessage().startsWith("line 4: user bob: unknown key \"max_db_connections\""), e.getMessage());
    }

    @Test
    void usersValueThatIsNoNumberIsRefusedAsWritten() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ProxyConfigLoader.configure(
                IniFile.parse("[databases]\na = host=h\n[users]\nbob = max_user_connections=-1\n"), Path.of(".")));
        assertEquals("line 4: user bob: max_user_connections must be a whole number of 0 or more, not \"-1\"",
                e.getMessage());
    }

    @Test
    void connectStringKeyPgmuxDoesNotKnowIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DatabaseEntry.parse("app", "host=h logfile='pgbouncer.log'"));
        assertTrue(e.getMessage().startsWith("database app: unsupported key \"logfile\""), e.getMessage());
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
    void everySslmodeOfLibpqIsAcceptedByItsName() {
        for (TlsMode mode : TlsMode.values()) {
            assertEquals(mode, DatabaseEntry.parse("app", "sslmode=" + mode.configName()).target().tlsMode());
        }
        assertEquals(TlsMode.VERIFY_FULL,
                ServerTargets.fromUrl("postgresql://h/app?sslmode=verify-full").tlsMode());
    }

    @Test
    void unknownSslmodeIsRefusedWithTheAcceptedValues() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DatabaseEntry.parse("app", "sslmode=verify"));
        assertEquals("unsupported sslmode \"verify\": use disable, allow, prefer, require, verify-ca or verify-full",
                e.getMessage());
    }

    @Test
    void tlsProtocolsTakePgBouncersNamesShortcutsAndNegations() {
        assertEquals(List.of("TLSv1.3", "TLSv1.2"), TlsProtocols.parse("server_tls_protocols", "secure"));
        assertEquals(List.of("TLSv1.2", "TLSv1.3"), TlsProtocols.parse("server_tls_protocols", "tlsv1.2, tlsv1.3"));
        assertEquals(List.of("TLSv1.3", "TLSv1.2", "TLSv1.1", "TLSv1"),
                TlsProtocols.parse("server_tls_protocols", "legacy"));
        assertEquals(List.of("TLSv1.3", "TLSv1.2"), TlsProtocols.parse("client_tls_protocols", "!tlsv1.0:!tlsv1.1"));
        assertEquals(List.of("TLSv1.2"), TlsProtocols.parse("client_tls_protocols", "secure,!tlsv1.3"));
    }

    @Test
    void tlsProtocolsThatAreUnknownOrLeaveNoneAreRefusedNamingTheKey() {
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> TlsProtocols.parse("server_tls_protocols", "sslv3"));
        assertTrue(unknown.getMessage().startsWith("unsupported server_tls_protocols value \"sslv3\""),
                unknown.getMessage());
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> TlsProtocols.parse("client_tls_protocols", "!all"));
        assertEquals("client_tls_protocols \"!all\" leaves no TLS protocol version", none.getMessage());
    }

    @Test
    void serverTlsFilesThatCannotBeReadAreRefusedWhenTheProxyStarts(@TempDir Path dir) {
        ProxyBuilder builder = ProxyConfigLoader.configure(IniFile.parse("[databases]\na = host=h\n"
                + "[pgbouncer]\nlisten_port = 0\nserver_tls_sslmode = verify-ca\nserver_tls_ca_file = missing.crt\n"),
                dir);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, builder::start);
        assertEquals("server_tls_ca_file " + dir.resolve("missing.crt") + " does not exist or cannot be read",
                e.getMessage());
    }

    @Test
    void serverTlsCertFileWithoutKeyFileIsRefused(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("client.crt"), "");
        ProxyBuilder builder = ProxyConfigLoader.configure(IniFile.parse("[databases]\na = host=h\n"
                + "[pgbouncer]\nlisten_port = 0\nserver_tls_cert_file = client.crt\n"), dir);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, builder::start);
        assertEquals("server_tls_cert_file and server_tls_key_file go together: set both or neither", e.getMessage());
    }

    @Test
    void malformedCaFileIsRefusedNamingTheSetting(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("ca.crt"), "not a certificate\n");
        ProxyBuilder builder = ProxyConfigLoader.configure(IniFile.parse("[databases]\na = host=h"
                + " sslmode=verify-full\n[pgbouncer]\nlisten_port = 0\nserver_tls_ca_file = ca.crt\n"), dir);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, builder::start);
        assertTrue(e.getMessage().startsWith("cannot use server_tls_ca_file " + dir.resolve("ca.crt") + ": "),
                e.getMessage());
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

    private static final String PEER_BASE = "[databases]\na = host=h\n[pgbouncer]\nlisten_addr = 127.0.0.1\n"
            + "listen_port = 6500\nunix_socket_dir = /run/pgmux-1\npeer_id = 1\n[peers]\n";

    private static IllegalArgumentException peersRefused(String entries) {
        return assertThrows(IllegalArgumentException.class,
                () -> ProxyConfigLoader.configure(IniFile.parse(PEER_BASE + entries), Path.of(".")));
    }

    @Test
    void aPeerIdAndPeersEntriesAreTaken() {
        ProxyConfigLoader.configure(IniFile.parse(PEER_BASE + "2 = host=/run/pgmux-2 port=6500\n"
                + "3 = host=10.0.0.3 pool_size=2\n"), Path.of("."));
    }

    @Test
    void aPeersEntryUnderTheOwnPeerIdMayNameTheOwnListenAddressAsInPgBouncer() {
        ProxyConfigLoader.configure(IniFile.parse(PEER_BASE + "1 = host=/run/pgmux-1 port=6500\n"
                + "2 = host=/run/pgmux-2 port=6500\n"), Path.of("."));
    }

    @Test
    void aPeersEntryUnderAnotherIdNamingTheOwnUnixSocketIsRefusedAtItsLine() {
        IllegalArgumentException e = peersRefused("2 = host=/run/pgmux-1 port=6500\n");
        assertTrue(e.getMessage().startsWith("line 9: peer 2 (/run/pgmux-1/.s.PGSQL.6500) is this process's own"
                + " listen address, and this process is peer_id 1"), e.getMessage());
    }

    @Test
    void aPeersEntryUnderAnotherIdNamingTheOwnTcpAddressIsRefusedAtItsLine() {
        IllegalArgumentException e = peersRefused("2 = host=/run/pgmux-2 port=6500\n3 = host=localhost port=6500\n");
        assertTrue(e.getMessage().startsWith("line 10: peer 3 (localhost:6500) is this process's own listen"
                + " address"), e.getMessage());
    }

    @Test
    void aPeersEntryWithoutHostIsRefusedWithPgBouncersReason() {
        IllegalArgumentException e = peersRefused("2 = port=6501\n");
        assertEquals("line 9: host was not provided for peer 2", e.getMessage());
    }

    @Test
    void aPeersEntryWithAKeyPgBouncerDoesNotTakeIsRefused() {
        IllegalArgumentException e = peersRefused("2 = host=/run/pgmux-2 dbname=x\n");
        assertTrue(e.getMessage().startsWith("line 9: unrecognized connection parameter: dbname"), e.getMessage());
    }

    @Test
    void aPeersIdOutsideOneTo65535IsRefused() {
        IllegalArgumentException e = peersRefused("0 = host=/run/pgmux-2\n");
        assertTrue(e.getMessage().startsWith("line 9: ids of peers must be a number larger than 0 and at most"
                + " 65535"), e.getMessage());
    }

    @Test
    void aPeerIdAboveWhatACancelKeyCarriesIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ProxyConfigLoader.configure(
                IniFile.parse("[databases]\na = host=h\n[pgbouncer]\npeer_id = 70000\n"), Path.of(".")));
        assertTrue(e.getMessage().startsWith("line 4: peer_id must be 0 (no peering) to 65535, not 70000"),
                e.getMessage());
    }

    @Test
    void authLdapOptionsIsRefusedAtStartupAndEmptyIsNone() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ProxyConfigLoader.configure(
                IniFile.parse("[databases]\na = host=h\n[pgbouncer]\nauth_ldap_options = ldapurl=\"ldap://x\"\n"),
                Path.of(".")));
        assertTrue(e.getMessage().startsWith("line 4: auth_ldap_options is not supported by pgmux: it has no LDAP"
                + " client"),
                e.getMessage());
        ProxyConfigLoader.configure(IniFile.parse("[databases]\na = host=h\n[pgbouncer]\nauth_ldap_options =\n"),
                Path.of("."));
    }

    @Test
    void anUnknownPgbouncerKeyIsRefusedAtItsLineAsPgBouncerRefusesIt() {
        IniFile ini = IniFile.parse("[databases]\na = host=h\n[pgbouncer]\nlisten_adress = 127.0.0.1\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ProxyConfigLoader.configure(ini, Path.of(".")));
        assertEquals("line 4: unknown setting 'listen_adress'; did you mean 'listen_addr'?", e.getMessage());
        assertEquals(new ProcessSettings(null, null, 0, false, "pgbouncer", SyslogFacility.DAEMON),
                ProxyConfigLoader.processSettings(ini, Path.of(".")), "the process settings read past it");
    }

    @Test
    void aDatabasesKeyInPgbouncerIsRefusedAtItsLine() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ProxyConfigLoader.configure(
                IniFile.parse("[databases]\na = host=h\n[pgbouncer]\ndbname = a\n"), Path.of(".")));
        assertTrue(e.getMessage().startsWith("line 4: unknown setting 'dbname'"), e.getMessage());
        assertTrue(e.getMessage().endsWith(" in [pgbouncer]: it is a [databases] or [users] key"), e.getMessage());
    }

    @Test
    void theProcessSettingsAreReadWithTheirDefaultsAndAnUnknownFacilityIsRefused() {
        ProcessSettings defaults = ProxyConfigLoader.processSettings(IniFile.parse("[databases]\na = host=h\n"),
                Path.of("/etc/pgmux"));
        assertEquals(new ProcessSettings(null, null, 0, false, "pgbouncer", SyslogFacility.DAEMON), defaults);
        ProcessSettings set = ProxyConfigLoader.processSettings(IniFile.parse("[pgbouncer]\nlogfile = p.log\n"
                + "syslog = 1\nsyslog_ident = pool\nsyslog_facility = local4\nverbose = 2\n"), Path.of("/etc/pgmux"));
        assertEquals(new ProcessSettings(Path.of("/etc/pgmux/p.log"), null, 2, true, "pool", SyslogFacility.LOCAL4),
                set);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () ->
                ProxyConfigLoader.processSettings(IniFile.parse("[pgbouncer]\nsyslog_facility = kern\n"),
                        Path.of(".")));
        assertTrue(e.getMessage().startsWith("line 2: syslog_facility must be"), e.getMessage());
    }

    @Test
    void userIsTakenWhenItNamesTheOsUserRunningPgmuxAndRefusedOtherwise() {
        ProxyConfigLoader.configure(IniFile.parse("[databases]\na = host=h\n[pgbouncer]\nuser = "
                + System.getProperty("user.name") + "\n"), Path.of("."));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ProxyConfigLoader.configure(
                IniFile.parse("[databases]\na = host=h\n[pgbouncer]\nuser = no-such-os-user\n"), Path.of(".")));
        assertTrue(e.getMessage().startsWith("line 4: user = no-such-os-user is not supported by pgmux: a JVM cannot"
                + " switch"
                + " its user"), e.getMessage());
    }

    // ---------------------------------------------------------------- a bad value names the file and line

    private static IllegalArgumentException refused(Path ini) {
        return assertThrows(IllegalArgumentException.class, () -> ProxyConfigLoader.load(ini));
    }

    @Test
    void aGlobalValueThatCannotBeUsedNamesFileLineAndKey(@TempDir Path dir) throws Exception {
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, "[databases]\na = host=h\n[pgbouncer]\nlisten_port = 0\ndefault_pool_size = abc\n");
        IllegalArgumentException e = refused(ini);
        assertTrue(e.getMessage().startsWith(ini.toAbsolutePath().normalize() + " line 5: "), e.getMessage());
        assertTrue(e.getMessage().contains("default_pool_size"), e.getMessage());
        assertEquals(1, e.getMessage().lines().count(), e.getMessage());
    }

    @Test
    void aDatabaseEntryValueThatCannotBeUsedNamesFileLineDatabaseAndKey(@TempDir Path dir) throws Exception {
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, "[databases]\na = host=h\nb = host=h pool_size=abc\n");
        assertEquals(ini.toAbsolutePath().normalize() + " line 3: database b: pool_size must be a whole"
                + " number of 0 or more, not \"abc\"", refused(ini).getMessage());
    }

    @Test
    void aDatabaseEntryTakesItsFleetAndBudget() {
        assertEquals(Map.of("fleet", "orders", "fleet_max_servers", "120"),
                DatabaseEntry.parse("app", "host=h fleet=orders fleet_max_servers=120").poolSettings());
    }

    @Test
    void aFleetWithoutItsBudgetNamesFileLineDatabaseAndKey(@TempDir Path dir) throws Exception {
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, "[databases]\na = host=h\nb = host=h fleet=orders\n");
        assertEquals(ini.toAbsolutePath().normalize() + " line 3: database b: fleet=orders needs fleet_max_servers,"
                + " the server connections the fleet's pools hold together", refused(ini).getMessage());
    }

    @Test
    void aBudgetWithoutItsFleetNamesFileLineDatabaseAndKey(@TempDir Path dir) throws Exception {
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, "[databases]\na = host=h fleet_max_servers=4\n");
        assertEquals(ini.toAbsolutePath().normalize() + " line 2: database a: fleet_max_servers=4 needs fleet,"
                + " the name of the fleet", refused(ini).getMessage());
    }

    @Test
    void aFleetBudgetBelowOneOrNoNumberNamesFileLineDatabaseAndKey(@TempDir Path dir) throws Exception {
        Path ini = dir.resolve("pgbouncer.ini");
        for (String budget : List.of("0", "-3", "many")) {
            Files.writeString(ini, "[databases]\na = host=h fleet=orders fleet_max_servers=" + budget + "\n");
            assertEquals(ini.toAbsolutePath().normalize() + " line 2: database a: fleet_max_servers must be a whole"
                    + " number of at least 1, not \"" + budget + "\"", refused(ini).getMessage());
        }
    }

    @Test
    void aFleetIsRefusedInThePgbouncerSection(@TempDir Path dir) throws Exception {
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, "[databases]\na = host=h\n[pgbouncer]\nlisten_port = 0\nfleet = orders\n");
        IllegalArgumentException e = refused(ini);
        assertTrue(e.getMessage().startsWith(ini.toAbsolutePath().normalize() + " line 5: unknown setting 'fleet'"),
                e.getMessage());
    }

    @Test
    void anUnknownKeyInAnEntryNamesFileAndLine(@TempDir Path dir) throws Exception {
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, "[databases]\na = host=h colour=blue\n");
        IllegalArgumentException e = refused(ini);
        assertTrue(e.getMessage().startsWith(ini.toAbsolutePath().normalize() + " line 2: database a: "), e.getMessage());
        assertTrue(e.getMessage().contains("colour"), e.getMessage());
    }

    @Test
    void aUserEntryValueThatCannotBeUsedNamesFileLineUserAndKey(@TempDir Path dir) throws Exception {
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, "[databases]\na = host=h\n\n[users]\nbob = pool_mode=bogus\n");
        assertEquals(ini.toAbsolutePath().normalize() + " line 5: user bob: pool_mode must be one of session,"
                + " transaction, statement, not \"bogus\"", refused(ini).getMessage());
    }

    @Test
    void aValueFromAnIncludedFileNamesTheIncludedFileAndItsLine(@TempDir Path dir) throws Exception {
        Path included = dir.resolve("pools.ini").toAbsolutePath().normalize();
        Files.writeString(included, "; pools\nmin_pool_size = few\n");
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, "[databases]\na = host=h\n[pgbouncer]\n%include " + included + "\nlisten_port = 0\n");
        IllegalArgumentException e = refused(ini);
        assertTrue(e.getMessage().startsWith(included + " line 2: "), e.getMessage());
        assertTrue(e.getMessage().contains("min_pool_size"), e.getMessage());
    }

    @Test
    void aKeyGivenTwiceIsReportedAtTheLineWhoseValueCounts(@TempDir Path dir) throws Exception {
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, "[databases]\na = host=h\n[pgbouncer]\nmax_client_conn = 10\nmax_client_conn = x\n");
        assertTrue(refused(ini).getMessage().startsWith(ini.toAbsolutePath().normalize() + " line 5: "));
    }

    @Test
    void anAuthFileThatCannotBeReadNamesTheLineThatSetsIt(@TempDir Path dir) throws Exception {
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, "[databases]\na = host=h\n[pgbouncer]\nauth_file = missing.txt\n");
        UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> ProxyConfigLoader.load(ini));
        assertEquals(ini.toAbsolutePath().normalize() + " line 4: cannot read auth_file " + dir.resolve("missing.txt")
                .toAbsolutePath() + ": no such file", e.getMessage());
    }

    @Test
    void anAuthFileByteThatIsNotUtf8NamesTheIniLineTheAuthFileAndItsLine(@TempDir Path dir) throws Exception {
        Path users = dir.resolve("userlist.txt");
        Files.write(users, "\"a\" \"b\"\n\n\"\u00e9\" \"c\"\n".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, "[databases]\na = host=h\n[pgbouncer]\nauth_file = userlist.txt\n");
        assertEquals(ini.toAbsolutePath().normalize() + " line 4: auth_file " + users.toAbsolutePath()
                + " line 3: byte 0xE9 at column 2 is not UTF-8 (the file must be UTF-8)", refused(ini).getMessage());
    }

    @Test
    void aMisspelledSectionIsRefusedNamingFileLineAndTheSectionMeant(@TempDir Path dir) throws Exception {
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, "[databases]\na = host=h\n\n[pgbouncr]\nlisten_port = 7432\n");
        assertEquals(ini.toAbsolutePath().normalize() + " line 4: unknown section [pgbouncr] (did you mean"
                + " [pgbouncer]?): a pgbouncer.ini has [pgbouncer], [databases], [users] and [peers]",
                refused(ini).getMessage());
    }

    @Test
    void anUnknownSectionIsRefusedEvenWhenEmpty(@TempDir Path dir) throws Exception {
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, "[databases]\na = host=h\n[pgbouncer]\nlisten_port = 0\n[metrics]\n");
        assertTrue(refused(ini).getMessage().startsWith(ini.toAbsolutePath().normalize() + " line 5: unknown section"
                + " [metrics]: "), refused(ini).getMessage());
    }

    @Test
    void aFileWithoutAPgbouncerSectionIsRefusedAsPgBouncerRefusesIt(@TempDir Path dir) throws Exception {
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, "[databases]\na = host=h\n");
        assertTrue(refused(ini).getMessage().startsWith(ini.toAbsolutePath().normalize() + ": the [pgbouncer] section"
                + " is missing"), refused(ini).getMessage());
    }

    @Test
    void anUnbalancedQuoteInADatabaseEntryIsRefusedNamingFileLineAndKey(@TempDir Path dir) throws Exception {
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, "[pgbouncer]\nlisten_port = 0\n[databases]\na = host=h password='it''s port=5433"
                + " dbname=real\n");
        assertEquals(ini.toAbsolutePath().normalize() + " line 4: database a: the quoted value of password has no"
                + " closing quote (a quote inside is written twice: '')", refused(ini).getMessage());
    }

    @Test
    void aConnectionUriEntryIsRefusedWithoutItsPassword(@TempDir Path dir) throws Exception {
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, "[pgbouncer]\nlisten_port = 0\n[databases]\na = postgresql://u:s3cr3t@h/db\n"
                + "b = postgres://u:s3cr3t@h/db?sslmode=require\n");
        String message = refused(ini).getMessage();
        assertEquals(ini.toAbsolutePath().normalize() + " line 4: database a: a connection URI is not taken here (as"
                + " in PgBouncer): write its parts as key=value pairs (host, port, dbname, user, password)", message);
        Files.writeString(ini, "[pgbouncer]\nlisten_port = 0\n[databases]\nb = postgres://u:s3cr3t@h/db?sslmode=x\n");
        assertFalse(refused(ini).getMessage().contains("s3cr3t"), refused(ini).getMessage());
    }

    @Test
    void textThatIsNoPairIsRefusedWithoutQuotingIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DatabaseEntry.parse("a", "host=h password=correct horse"));
        assertEquals("database a: expected key=value at character 25, after password (a value with spaces is quoted:"
                + " key='a value')", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> DatabaseEntry.parse("a", "password='x'y=z"));
        assertEquals("database a: expected a space after the quoted value of password at character 13", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> DatabaseEntry.parse("a", "host=h p@ss:w0rd=1"));
        assertFalse(e.getMessage().contains("w0rd"), e.getMessage());
    }

    @Test
    void aKeyMayStandApartFromItsEqualsSign() {
        assertEquals("h", DatabaseEntry.parse("a", "host =h port =5433").target().host());
    }

    @Test
    void aValueOutOfItsRangeIsRefusedNamingFileLineAndTheReason(@TempDir Path dir) throws Exception {
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, "[databases]\na = host=h\n[pgbouncer]\nlisten_port = 0\nstats_period = 0\n");
        assertEquals(ini.toAbsolutePath().normalize() + " line 5: stats_period must be 1 second or more, not 0: it is"
                + " how often the averages are computed and logged", refused(ini).getMessage());
        Files.writeString(ini, "[databases]\na = host=h\n[pgbouncer]\nlogfile = /proc/self/mem\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ProxyConfigLoader.processSettings(IniFile.load(ini), dir));
        assertEquals(ini.toAbsolutePath().normalize() + " line 4: logfile must be a regular file or one not made yet,"
                + " not /proc/self/mem: it is a file of the kernel's proc file system", e.getMessage());
    }

    @Test
    void aProcessSettingThatCannotBeUsedNamesFileAndLine(@TempDir Path dir) throws Exception {
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, "[databases]\na = host=h\n[pgbouncer]\nverbose = loud\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ProxyConfigLoader.processSettings(IniFile.load(ini), dir));
        assertTrue(e.getMessage().startsWith(ini.toAbsolutePath().normalize() + " line 4: verbose"), e.getMessage());
    }
}
