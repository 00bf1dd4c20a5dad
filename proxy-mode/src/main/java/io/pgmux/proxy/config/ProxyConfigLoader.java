package io.pgmux.proxy.config;

import io.pgmux.core.config.ConfigKey;
import io.pgmux.core.config.PoolMode;
import io.pgmux.proxy.PgMuxProxy;
import io.pgmux.proxy.auth.AuthType;
import io.pgmux.proxy.server.ConnectString;
import io.pgmux.proxy.server.ServerTargets;
import io.pgmux.proxy.server.TlsMode;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Configures a proxy from a pgbouncer.ini-shaped file: {@code [databases]} entries (with their own pool_size,
 * min_pool_size, reserve_pool, pool_mode and max_db_connections) and the {@code [pgbouncer]}
 * settings listen_addr, listen_port, auth_type, auth_file, client_login_timeout, client_idle_timeout,
 * idle_transaction_timeout (whole seconds), max_prepared_statements, threads (pgmux's own: event loop
 * threads, 0 for one per two cores), server_tls_sslmode, server_tls_ca_file, server_tls_cert_file,
 * server_tls_key_file, server_tls_protocols, admin_users, stats_users (comma-separated user names) and
 * every pool setting pgmux knows (pool_mode, default_pool_size, max_client_conn, query_wait_timeout, …).
 * {@code [users]} entries take pool_mode, pool_size, reserve_pool_size and max_user_connections, which win
 * over the database's and the global ones, as in PgBouncer. Other PgBouncer settings (logfile, …) are logged
 * and ignored. {@code %include file} reads another file in place (see {@link IniFile}). Relative file names
 * (auth_file, server_tls_*_file) are resolved against the file's directory.
 */
public final class ProxyConfigLoader {
    private static final Logger log = LoggerFactory.getLogger(ProxyConfigLoader.class);
    private static final Set<String> PROXY_KEYS = Set.of("listen_addr", "listen_port", "auth_type", "auth_file",
            "client_login_timeout", "max_prepared_statements", "client_idle_timeout", "idle_transaction_timeout",
            "threads", "server_tls_sslmode", "server_tls_ca_file", "server_tls_cert_file", "server_tls_key_file",
            "server_tls_protocols", "admin_users", "stats_users");

    /** The [users] keys pgmux takes, and the global setting each overrides. */
    private static final Map<String, String> USER_KEYS = userKeys();
    /** The [users] keys of PgBouncer 1.25 that pgmux does not take yet. */
    private static final Set<String> PGBOUNCER_USER_KEYS = Set.of("query_timeout", "query_wait_timeout",
            "idle_transaction_timeout", "transaction_timeout", "client_idle_timeout", "max_user_client_connections");

    private static Map<String, String> userKeys() {
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put("pool_mode", "pool_mode");
        keys.put("pool_size", "default_pool_size");
        keys.put("reserve_pool_size", "reserve_pool_size");
        keys.put("max_user_connections", "max_user_connections");
        return keys;
    }

    private ProxyConfigLoader() {
    }

    public static PgMuxProxy.Builder load(Path file) throws IOException {
        IniFile ini = IniFile.load(file);
        Path base = file.toAbsolutePath().getParent();
        return configure(ini, base).reloadFrom(() -> load(file));
    }

    /** @param base where relative file names (auth_file, server_tls_*_file) are looked up */
    public static PgMuxProxy.Builder configure(IniFile ini, Path base) {
        PgMuxProxy.Builder builder = PgMuxProxy.builder();
        Map<String, String> databases = ini.section("databases");
        if (databases.isEmpty()) {
            throw new IllegalArgumentException("the [databases] section is missing or empty");
        }
        databases.forEach((name, value) -> {
            builder.database(name, ServerTargets.fromConnectString(name, value));
            ServerTargets.poolSettings(name, value).forEach((key, v) -> builder.databaseSetting(name, key, v));
        });
        ini.section("users").forEach((user, value) -> userSettings(builder, user, value));
        Map<String, String> settings = ini.section("pgbouncer");
        String host = settings.getOrDefault("listen_addr", "127.0.0.1");
        int port = intSetting(settings, "listen_port", 6432);
        builder.listen(host.equals("*") ? "0.0.0.0" : host, port);
        if (settings.containsKey("auth_type")) {
            builder.authType(AuthType.fromConfig(settings.get("auth_type")));
        }
        if (settings.containsKey("auth_file")) {
            builder.authFile(base.resolve(settings.get("auth_file")));
        }
        if (settings.containsKey("client_login_timeout")) {
            builder.clientLoginTimeout(Duration.ofSeconds(intSetting(settings, "client_login_timeout", 60)));
        }
        if (settings.containsKey("client_idle_timeout")) {
            builder.clientIdleTimeout(Duration.ofSeconds(intSetting(settings, "client_idle_timeout", 0)));
        }
        if (settings.containsKey("idle_transaction_timeout")) {
            builder.idleTransactionTimeout(Duration.ofSeconds(intSetting(settings, "idle_transaction_timeout", 0)));
        }
        if (settings.containsKey("threads")) {
            builder.threads(intSetting(settings, "threads", 0));
        }
        if (settings.containsKey("server_tls_sslmode")) {
            builder.serverTlsSslMode(TlsMode.fromConfig(settings.get("server_tls_sslmode")));
        }
        Path caFile = file(settings, "server_tls_ca_file", base);
        if (caFile != null) {
            builder.serverTlsCaFile(caFile);
        }
        Path certFile = file(settings, "server_tls_cert_file", base);
        Path keyFile = file(settings, "server_tls_key_file", base);
        if (certFile != null || keyFile != null) {
            builder.serverTlsClientCertificate(certFile, keyFile);
        }
        if (settings.containsKey("server_tls_protocols")) {
            builder.serverTlsProtocols(settings.get("server_tls_protocols"));
        }
        if (settings.containsKey("admin_users")) {
            builder.adminUsers(settings.get("admin_users"));
        }
        if (settings.containsKey("stats_users")) {
            builder.statsUsers(settings.get("stats_users"));
        }
        if (settings.containsKey("max_prepared_statements")) {
            builder.maxPreparedStatements(intSetting(settings, "max_prepared_statements", 200));
        }
        settings.forEach((key, value) -> {
            if (PROXY_KEYS.contains(key)) {
                return;
            }
            if (ConfigKey.lookup(key) != null) {
                if (key.equals("pool_mode")) {
                    builder.poolMode(PoolMode.parse(value));
                } else {
                    builder.set(key, value);
                }
            } else {
                log.warn("pgbouncer.ini setting {} is not supported by pgmux yet and is ignored", key);
            }
        });
        return builder;
    }

    /**
     * A {@code [users]} entry: {@code pool_mode}, {@code pool_size}, {@code reserve_pool_size} and
     * {@code max_user_connections}; any other key stops the load, so that no entry is half applied.
     */
    private static void userSettings(PgMuxProxy.Builder builder, String user, String value) {
        String owner = "user " + user;
        ConnectString.parse(owner, value).forEach((key, v) -> {
            String global = USER_KEYS.get(key);
            if (global == null) {
                throw new IllegalArgumentException(owner + ": " + (PGBOUNCER_USER_KEYS.contains(key)
                        ? "key \"" + key + "\" is not supported by pgmux yet"
                        : "unknown key \"" + key + "\"") + " (supported: " + String.join(", ", USER_KEYS.keySet())
                        + ")");
            }
            builder.userSetting(user, global, ServerTargets.checkedPoolValue(owner, key, v));
        });
    }

    /** A file setting, relative to {@code base}; null when absent or empty (PgBouncer's "not set"). */
    private static Path file(Map<String, String> settings, String key, Path base) {
        String value = settings.get(key);
        return value == null || value.isBlank() ? null : base.resolve(value.strip());
    }

    private static int intSetting(Map<String, String> settings, String key, int defaultValue) {
        String value = settings.get(key);
        if (value == null) {
            return defaultValue;
        }
        try {
            return Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be a whole number, not \"" + value + "\"");
        }
    }
}
