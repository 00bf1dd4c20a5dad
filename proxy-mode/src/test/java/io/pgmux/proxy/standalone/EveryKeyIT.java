package io.pgmux.proxy.standalone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.proxy.config.ProxySetting;
import io.pgmux.proxy.config.Scope;
import io.pgmux.proxy.log.Syslog;
import io.pgmux.proxy.log.SyslogReceiver;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestCertificates;
import io.pgmux.testing.TestDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runnable jar on a pgbouncer.ini that sets every key of PgBouncer 1.25's config.md — each {@code [pgbouncer]}
 * key to a valid value other than its default, a {@code [databases]} and a {@code [users]} entry with every key —
 * takes each value (SHOW CONFIG, SHOW DATABASES, SHOW USERS) and serves psql. The keys come from config.md's
 * headings (a test resource): one added there and not written here, as a value, a refusal by design or a key still
 * pending, fails the test.
 */
@PostgresTest
class EveryKeyIT {
    private static final String HEADINGS = "/pgbouncer-1.25-config-headings.md";
    private static final String USER = "app";
    private static final String PASSWORD = "app-secret";

    /**
     * Each {@code [pgbouncer]} key and its value; {@code {dir}} is the test's directory, {@code {os_group}} the
     * group of the user running the tests. SHOW CONFIG prints each as written.
     */
    private static final Map<String, String> GLOBAL = new LinkedHashMap<>();

    static {
        GLOBAL.put("logfile", "{dir}/pgmux.log");
        GLOBAL.put("pidfile", "{dir}/pgmux.pid");
        GLOBAL.put("listen_addr", "127.0.0.1,localhost");
        GLOBAL.put("listen_port", "0");
        GLOBAL.put("unix_socket_dir", "{dir}/sockets");
        GLOBAL.put("unix_socket_mode", "0700");
        GLOBAL.put("unix_socket_group", "{os_group}");
        GLOBAL.put("pool_mode", "transaction");
        GLOBAL.put("max_client_conn", "50");
        GLOBAL.put("default_pool_size", "3");
        GLOBAL.put("min_pool_size", "1");
        GLOBAL.put("reserve_pool_size", "1");
        GLOBAL.put("reserve_pool_timeout", "2");
        GLOBAL.put("max_db_connections", "10");
        GLOBAL.put("max_user_connections", "10");
        GLOBAL.put("server_round_robin", "1");
        GLOBAL.put("track_extra_parameters", "IntervalStyle,search_path");
        GLOBAL.put("ignore_startup_parameters", "extra_float_digits");
        GLOBAL.put("application_name_add_host", "1");
        GLOBAL.put("stats_period", "30");
        GLOBAL.put("max_prepared_statements", "100");
        GLOBAL.put("scram_iterations", "8192");
        GLOBAL.put("auth_type", "scram-sha-256");
        GLOBAL.put("auth_hba_file", "{dir}/hba.conf");
        GLOBAL.put("auth_ident_file", "{dir}/ident.conf");
        GLOBAL.put("auth_file", "{dir}/userlist.txt");
        GLOBAL.put("auth_user", USER);
        GLOBAL.put("auth_query", "SELECT usename, passwd FROM pg_shadow WHERE usename=$1");
        GLOBAL.put("auth_dbname", "app");
        GLOBAL.put("syslog", "1");
        GLOBAL.put("syslog_ident", "pgmux-every-key");
        GLOBAL.put("syslog_facility", "local1");
        GLOBAL.put("log_connections", "0");
        GLOBAL.put("log_disconnections", "0");
        GLOBAL.put("log_pooler_errors", "0");
        GLOBAL.put("log_stats", "0");
        GLOBAL.put("verbose", "1");
        GLOBAL.put("admin_users", USER);
        GLOBAL.put("stats_users", "stats");
        GLOBAL.put("server_reset_query", "RESET ALL");
        GLOBAL.put("server_reset_query_always", "1");
        GLOBAL.put("server_check_delay", "10");
        GLOBAL.put("server_check_query", "SELECT 1");
        GLOBAL.put("server_lifetime", "1800");
        GLOBAL.put("server_idle_timeout", "300");
        GLOBAL.put("server_connect_timeout", "5");
        GLOBAL.put("server_login_retry", "3");
        GLOBAL.put("client_login_timeout", "30");
        GLOBAL.put("dns_max_ttl", "30");
        GLOBAL.put("dns_nxdomain_ttl", "30");
        GLOBAL.put("dns_zone_check_period", "60");
        GLOBAL.put("resolv_conf", "/etc/resolv.conf");
        GLOBAL.put("client_tls_sslmode", "allow");
        GLOBAL.put("client_tls_key_file", "{dir}/proxy.key");
        GLOBAL.put("client_tls_cert_file", "{dir}/proxy.crt");
        GLOBAL.put("client_tls_ca_file", "{dir}/ca.crt");
        GLOBAL.put("client_tls_protocols", "tlsv1.2,tlsv1.3");
        GLOBAL.put("client_tls_ciphers", "all");
        GLOBAL.put("client_tls13_ciphers", "TLS_AES_256_GCM_SHA384");
        GLOBAL.put("server_tls_sslmode", "disable");
        GLOBAL.put("server_tls_ca_file", "{dir}/ca.crt");
        GLOBAL.put("server_tls_key_file", "{dir}/proxy.key");
        GLOBAL.put("server_tls_cert_file", "{dir}/proxy.crt");
        GLOBAL.put("server_tls_protocols", "tlsv1.3");
        GLOBAL.put("query_timeout", "60");
        GLOBAL.put("query_wait_timeout", "60");
        GLOBAL.put("cancel_wait_timeout", "5");
        GLOBAL.put("client_idle_timeout", "600");
        GLOBAL.put("idle_transaction_timeout", "600");
        GLOBAL.put("transaction_timeout", "600");
        GLOBAL.put("suspend_timeout", "5");
        GLOBAL.put("pkt_buf", "8192");
        GLOBAL.put("max_packet_size", "16777216");
        GLOBAL.put("listen_backlog", "64");
        GLOBAL.put("sbuf_loopcnt", "10");
        GLOBAL.put("so_reuseport", "1");
        GLOBAL.put("tcp_defer_accept", "0");
        GLOBAL.put("tcp_socket_buffer", "65536");
        GLOBAL.put("tcp_keepalive", "0");
        GLOBAL.put("tcp_keepcnt", "3");
        GLOBAL.put("tcp_keepidle", "30");
        GLOBAL.put("tcp_keepintvl", "10");
        GLOBAL.put("tcp_user_timeout", "30000");
        GLOBAL.put("disable_pqexec", "0");
        GLOBAL.put("conffile", "{dir}/pgbouncer.ini");
        GLOBAL.put("service_name", "pgmux-every-key");
        GLOBAL.put("job_name", "pgmux-every-key");
        GLOBAL.put("autodb_idle_timeout", "600");
        GLOBAL.put("max_db_client_connections", "40");
        GLOBAL.put("max_user_client_connections", "30");
        GLOBAL.put("query_wait_notify", "3");
        GLOBAL.put("login_notify_message", "every-key-welcome");
        GLOBAL.put("server_tls_ciphers", "TLS_AES_256_GCM_SHA384:ECDHE-RSA-AES256-GCM-SHA384");
        GLOBAL.put("server_tls13_ciphers", "TLS_AES_128_GCM_SHA256");
        GLOBAL.put("server_fast_close", "1");
        GLOBAL.put("pool_idle_timeout", "900");
    }

    /** [pgbouncer] keys set here to their default, and why another value cannot serve this test. */
    private static final Map<String, String> AT_DEFAULT = Map.of(
            "disable_pqexec", "1 closes psql, whose every query is a simple Query (DisablePqexecTest covers 1)");

    /** [pgbouncer] keys pgmux refuses with another value than their default, by design, and why. */
    private static final Map<String, String> REFUSED = Map.of(
            "user", "switches the OS user: a JVM cannot (as -u); the OS user running pgmux is taken, any other refused",
            "peer_id", "PgBouncer's peering: pgmux cannot forward cancel requests to or from peers",
            "auth_ldap_options", "pgmux has no LDAP client",
            "client_tls_ecdhcurve", "the JVM chooses the key exchange groups: only auto is taken",
            "client_tls_dheparams", "the JVM chooses the key exchange groups: only auto is taken");

    /**
     * Keys being implemented on other branches: whoever merges one moves it to {@link #GLOBAL} (or the entries) with
     * a non-default value; {@link #pendingKeysAreStillNotTakenByPgmux} fails once pgmux takes one.
     */
    private static final Set<String> PENDING = Set.of();
    private static final Set<String> PENDING_DATABASE = Set.of();
    private static final Set<String> PENDING_USER = Set.of();

    /** The [databases] entry's keys; {@code {host}} and the like are the fixture's server. */
    private static final Map<String, String> DATABASE = new LinkedHashMap<>();

    static {
        DATABASE.put("host", "{host}");
        DATABASE.put("port", "{port}");
        DATABASE.put("dbname", "{dbname}");
        DATABASE.put("user", "{superuser}");
        DATABASE.put("password", "{superuser_password}");
        DATABASE.put("auth_user", USER);
        DATABASE.put("auth_query", "'SELECT usename, passwd FROM pg_shadow WHERE usename=$1'");
        DATABASE.put("auth_dbname", "app");
        DATABASE.put("pool_size", "4");
        DATABASE.put("min_pool_size", "1");
        DATABASE.put("reserve_pool_size", "2");
        DATABASE.put("pool_mode", "session");
        DATABASE.put("query_wait_timeout", "30");
        DATABASE.put("load_balance_hosts", "disable");
        DATABASE.put("max_db_connections", "8");
        DATABASE.put("server_lifetime", "1200");
        DATABASE.put("connect_query", "'SELECT 1'");
        DATABASE.put("max_db_client_connections", "20");
        DATABASE.put("client_encoding", "UTF8");
        DATABASE.put("datestyle", "ISO");
        DATABASE.put("timezone", "Europe/Paris");
    }

    /** The [users] entry's keys. */
    private static final Map<String, String> USER_ENTRY = new LinkedHashMap<>();

    static {
        USER_ENTRY.put("pool_size", "2");
        USER_ENTRY.put("reserve_pool_size", "1");
        USER_ENTRY.put("pool_mode", "session");
        USER_ENTRY.put("max_user_connections", "6");
        USER_ENTRY.put("query_timeout", "120");
        USER_ENTRY.put("query_wait_timeout", "40");
        USER_ENTRY.put("idle_transaction_timeout", "300");
        USER_ENTRY.put("transaction_timeout", "400");
        USER_ENTRY.put("client_idle_timeout", "500");
        USER_ENTRY.put("max_user_client_connections", "10");
    }

    private final TestDatabase db;
    @TempDir
    Path dir;

    EveryKeyIT(TestDatabase db) {
        this.db = db;
    }

    /** config.md's keys by section: {@code pgbouncer} (the settings before [databases]), {@code databases}, {@code users}. */
    private static Map<String, Set<String>> configMdKeys() throws IOException {
        Map<String, Set<String>> keys = new HashMap<>();
        String section = null;
        try (InputStream in = EveryKeyIT.class.getResourceAsStream(HEADINGS)) {
            assertTrue(in != null, HEADINGS + " is missing");
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.startsWith("### ") && section != null) {
                    keys.computeIfAbsent(section, s -> new TreeSet<>()).add(line.substring(4).strip());
                } else if (line.startsWith("## ")) {
                    String heading = line.substring(3).strip();
                    section = heading.endsWith("settings") || heading.startsWith("Console")
                            || heading.startsWith("Connection sanity") || heading.startsWith("Dangerous")
                            || heading.startsWith("Low-level") ? "pgbouncer"
                            : heading.equals("Section [databases]") ? "databases"
                            : heading.equals("Section [users]") ? "users"
                            : heading.equals("Section [peers]") ? "peers" : null;
                }
            }
        }
        return keys;
    }

    private static Set<String> union(Set<String> a, Set<String> b, Set<String> c) {
        Set<String> all = new TreeSet<>(a);
        all.addAll(b);
        all.addAll(c);
        return all;
    }

    @Test
    void everyKeyOfConfigMdIsSetHereRefusedByDesignOrPending() throws Exception {
        Map<String, Set<String>> keys = configMdKeys();
        assertEquals(keys.get("pgbouncer"), union(GLOBAL.keySet(), REFUSED.keySet(), PENDING),
                "[pgbouncer] keys of config.md against those this test sets, refuses or waits for");
        assertEquals(keys.get("databases"), union(DATABASE.keySet(), PENDING_DATABASE, Set.of()),
                "[databases] keys of config.md against this test's entry");
        assertEquals(keys.get("users"), union(USER_ENTRY.keySet(), PENDING_USER, Set.of()),
                "[users] keys of config.md against this test's entry");
    }

    @Test
    void pendingKeysAreStillNotTakenByPgmux() {
        for (String key : PENDING) {
            assertEquals(null, ProxySetting.global(key), key + " is taken by pgmux now: move it from PENDING to"
                    + " GLOBAL with a value other than its default");
        }
        for (String key : union(PENDING_DATABASE, PENDING_USER, Set.of())) {
            ProxySetting setting = ProxySetting.named(key);
            boolean taken = setting != null && (PENDING_DATABASE.contains(key)
                    && setting.takenIn(Scope.DATABASE) || PENDING_USER.contains(key)
                    && setting.takenIn(Scope.USER));
            assertTrue(!taken, key + " is taken in its entry by pgmux now: move it from PENDING_DATABASE or"
                    + " PENDING_USER to the entry");
        }
    }

    private String fill(String value, Map<String, String> placeholders) {
        String filled = value;
        for (Map.Entry<String, String> p : placeholders.entrySet()) {
            filled = filled.replace("{" + p.getKey() + "}", p.getValue());
        }
        return filled;
    }

    @Test
    void theProxyStartedOnAnIniSettingEveryKeyTakesEachValueAndServesPsql() throws Exception {
        Map<String, String> placeholders = Map.of("dir", dir.toString(),
                "os_group", Files.readAttributes(dir, PosixFileAttributes.class).group().getName(),
                "host", db.host(), "port", String.valueOf(db.port()), "dbname", db.name(),
                "superuser", db.superuser(), "superuser_password", db.superuserPassword());
        Files.createDirectory(dir.resolve("sockets"));
        TestCertificates ca = TestCertificates.authority(dir, "every-key-ca");
        TestCertificates.Issued proxyCertificate = ca.issue("proxy", "localhost", "dns:localhost,ip:127.0.0.1");
        Files.copy(ca.caCertificate(), dir.resolve("ca.crt"));
        assertEquals(dir.resolve("proxy.crt"), proxyCertificate.certificate());
        Files.writeString(dir.resolve("userlist.txt"), "\"" + USER + "\" \"" + PASSWORD + "\"\n\"stats\" \"s\"\n");
        Files.writeString(dir.resolve("hba.conf"), "host all all 127.0.0.1/32 scram-sha-256\n");
        Files.writeString(dir.resolve("ident.conf"), "");
        StringBuilder ini = new StringBuilder("[databases]\napp =");
        DATABASE.forEach((key, value) -> ini.append(' ').append(key).append('=').append(fill(value, placeholders)));
        ini.append("\n[users]\n").append(USER).append(" =");
        USER_ENTRY.forEach((key, value) -> ini.append(' ').append(key).append('=').append(value));
        ini.append("\n[pgbouncer]\nuser = ").append(System.getProperty("user.name")).append('\n');
        GLOBAL.forEach((key, value) -> ini.append(key).append(" = ").append(fill(value, placeholders)).append('\n'));
        Path file = Files.writeString(dir.resolve("pgbouncer.ini"), ini.toString());

        try (SyslogReceiver daemon = new SyslogReceiver(dir.resolve("log"));
                ProxyJar proxy = ProxyJar.start(List.of("-D" + Syslog.SOCKET_PROPERTY + "=" + daemon.path()),
                        file.toString())) {
            int port = proxy.awaitPort();
            daemon.await(Pattern.compile("<142>.* pgmux-every-key\\[\\d+\\]: process up: .*"));
            assertTrue(proxy.stderr().stream().noneMatch(line -> line.contains(" WARNING ")),
                    "a key was not taken:\n" + String.join("\n", proxy.stderr()));

            Properties properties = new Properties();
            properties.setProperty("user", USER);
            properties.setProperty("password", PASSWORD);
            properties.setProperty("preferQueryMode", "simple");
            properties.setProperty("sslmode", "disable");
            try (Connection console = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port
                    + "/pgbouncer", properties)) {
                Map<String, List<String>> config = rows(console, "SHOW CONFIG", "key", "value", "default");
                List<String> wrong = new ArrayList<>();
                GLOBAL.forEach((key, value) -> {
                    List<String> row = config.get(key);
                    String expected = fill(value, placeholders);
                    if (row == null) {
                        wrong.add(key + ": no SHOW CONFIG row");
                    } else if (!row.get(0).equals(expected)) {
                        wrong.add(key + ": " + row.get(0) + ", not " + expected);
                    } else if (row.get(0).equals(row.get(1)) && !AT_DEFAULT.containsKey(key)) {
                        wrong.add(key + ": " + expected + " is its default; pick another value");
                    }
                });
                assertEquals(List.of(), wrong, "SHOW CONFIG");

                List<String> database = rows(console, "SHOW DATABASES", "name", "host", "port", "database",
                        "force_user", "pool_size", "min_pool_size", "reserve_pool_size", "server_lifetime",
                        "pool_mode", "max_connections", "max_client_connections").get("app");
                assertEquals(List.of(db.host(), String.valueOf(db.port()), db.name(), db.superuser(), "4", "1", "2",
                        "1200", "session", "8", "20"), database, "SHOW DATABASES: host, port, database, force_user,"
                        + " pool_size, min_pool_size, reserve_pool_size, server_lifetime, pool_mode, max_connections,"
                        + " max_client_connections");
                List<String> user = rows(console, "SHOW USERS", "name", "pool_size", "reserve_pool_size",
                        "pool_mode", "max_user_connections", "max_user_client_connections").get(USER);
                assertEquals(List.of("        2", "        1", "session", "6", "10"), user,
                        "SHOW USERS: pool_size, reserve_pool_size, pool_mode, max_user_connections,"
                        + " max_user_client_connections");
            }

            Process psql = new ProcessBuilder("psql", "-X", "-A", "-t", "-c", "SELECT 6 * 7", "host=127.0.0.1 port="
                    + port + " dbname=app user=" + USER + " password=" + PASSWORD + " sslmode=disable")
                    .redirectErrorStream(true).start();
            assertTrue(psql.waitFor(60, TimeUnit.SECONDS), "psql did not finish");
            String output = new String(psql.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, psql.exitValue(), output);
            List<String> lines = output.strip().lines().toList();
            assertEquals("42", lines.get(lines.size() - 1), output);
            assertTrue(output.contains("every-key-welcome"), "login_notify_message reached psql: " + output);
            assertNotEquals(List.of(), Files.readAllLines(dir.resolve("pgmux.log")), "the logfile is empty");
        }
    }

    /** The rows of an admin SHOW, by their first column, each the other columns named. */
    private static Map<String, List<String>> rows(Connection console, String show, String key, String... columns)
            throws Exception {
        Map<String, List<String>> rows = new LinkedHashMap<>();
        try (Statement s = console.createStatement(); ResultSet rs = s.executeQuery(show)) {
            while (rs.next()) {
                List<String> values = new ArrayList<>();
                for (String column : columns) {
                    values.add(rs.getString(column));
                }
                rows.put(rs.getString(key), values);
            }
        }
        return rows;
    }
}
