package io.pgmux.proxy.server;

import io.pgmux.core.config.PoolMode;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** Parses the forms a database target is written in: a {@code postgresql://} URL, or PgBouncer's connect string. */
public final class ServerTargets {
    private static final int DEFAULT_PORT = 5432;

    private ServerTargets() {
    }

    /**
     * {@code postgresql://user:password@host:port/dbname?sslmode=…}; user, password, port (5432) and sslmode
     * (disable, allow, prefer, require, verify-ca, verify-full; without it the proxy's server_tls_sslmode) are
     * optional.
     *
     * @throws IllegalArgumentException naming what is wrong, never showing the password
     */
    public static ServerTarget fromUrl(String url) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("malformed database URL: " + e.getReason());
        }
        if (!"postgresql".equals(uri.getScheme()) && !"postgres".equals(uri.getScheme())) {
            throw new IllegalArgumentException("a database URL starts with postgresql://");
        }
        if (uri.getHost() == null) {
            throw new IllegalArgumentException("the database URL names no host");
        }
        String path = uri.getPath();
        if (path == null || path.length() <= 1) {
            throw new IllegalArgumentException("the database URL names no database");
        }
        String user = null;
        String password = null;
        String userInfo = uri.getRawUserInfo();
        if (userInfo != null) {
            int colon = userInfo.indexOf(':');
            user = decode(colon < 0 ? userInfo : userInfo.substring(0, colon));
            password = colon < 0 ? null : decode(userInfo.substring(colon + 1));
        }
        TlsMode tls = null;
        String query = uri.getRawQuery();
        if (query != null) {
            for (String pair : query.split("&")) {
                int eq = pair.indexOf('=');
                String name = eq < 0 ? pair : pair.substring(0, eq);
                String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
                if (name.equals("sslmode")) {
                    tls = TlsMode.fromConfig(value);
                } else {
                    throw new IllegalArgumentException("unsupported database URL parameter \"" + name + "\"");
                }
            }
        }
        return new ServerTarget(uri.getHost(), uri.getPort() < 0 ? DEFAULT_PORT : uri.getPort(),
                decode(path.substring(1)), user, password, tls);
    }

    private static String decode(String s) {
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    /**
     * A {@code [databases]} value of pgbouncer.ini: {@code host=… port=… dbname=… user=… password=… sslmode=…},
     * values optionally single-quoted. {@code dbname} defaults to {@code name}, host to 127.0.0.1, port to 5432,
     * sslmode (also spelled server_tls_sslmode) to the proxy's server_tls_sslmode. The pool settings PgBouncer
     * allows there (pool_size, …) are skipped: {@link #poolSettings} reads them.
     *
     * @throws IllegalArgumentException for an unknown or malformed key (PgBouncer keys pgmux does not
     *     implement yet, such as connect_query, are named in the message)
     */
    public static ServerTarget fromConnectString(String name, String connectString) {
        String host = "127.0.0.1";
        int port = DEFAULT_PORT;
        String dbname = name;
        String user = null;
        String password = null;
        TlsMode tls = null;
        for (Map.Entry<String, String> e : ConnectString.parse("database " + name, connectString).entrySet()) {
            String key = e.getKey();
            String v = e.getValue();
            switch (key) {
                case "host" -> host = v;
                case "port" -> {
                    try {
                        port = Integer.parseInt(v);
                    } catch (NumberFormatException ex) {
                        throw new IllegalArgumentException("database " + name + ": port must be a number");
                    }
                }
                case "dbname" -> dbname = v;
                case "user" -> user = v;
                case "password" -> password = v;
                case "server_tls_sslmode", "sslmode" -> tls = TlsMode.fromConfig(v);
                default -> {
                    if (!POOL_KEYS.containsKey(key)) {
                        throw new IllegalArgumentException("database " + name + ": unsupported key \"" + key
                                + "\" (supported: host, port, dbname, user, password, sslmode, "
                                + String.join(", ", POOL_KEYS.keySet()) + ")");
                    }
                }
            }
        }
        return new ServerTarget(host, port, dbname, user, password, tls);
    }

    /**
     * The pool settings of a {@code [databases]} value, under the names of the global settings they override
     * (pool_size is default_pool_size; reserve_pool, PgBouncer's alias, is reserve_pool_size). Other keys are
     * left to {@link #fromConnectString}.
     */
    public static Map<String, String> poolSettings(String name, String connectString) {
        Map<String, String> settings = new LinkedHashMap<>();
        ConnectString.parse("database " + name, connectString).forEach((key, value) -> {
            String global = POOL_KEYS.get(key);
            if (global != null) {
                settings.put(global, checkedPoolValue("database " + name, key, value));
            }
        });
        return settings;
    }

    /**
     * {@code value} of the per-database or per-user pool setting {@code key}: pool_mode one of session,
     * transaction, statement, the others whole numbers of 0 or more.
     *
     * @throws IllegalArgumentException naming {@code owner} and the key as written
     */
    public static String checkedPoolValue(String owner, String key, String value) {
        if (key.equals("pool_mode")) {
            try {
                PoolMode.parse(value);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(owner + ": pool_mode " + e.getMessage() + ", not \"" + value
                        + "\"");
            }
            return value;
        }
        int n;
        try {
            n = Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            n = -1;
        }
        if (n < 0) {
            throw new IllegalArgumentException(owner + ": " + key + " must be a whole number of 0 or more, not \""
                    + value + "\"");
        }
        return value;
    }

    /** The pool settings PgBouncer takes in a [databases] value, and the global setting each overrides. */
    private static final Map<String, String> POOL_KEYS = poolKeys();

    private static Map<String, String> poolKeys() {
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put("pool_size", "default_pool_size");
        keys.put("min_pool_size", "min_pool_size");
        keys.put("reserve_pool", "reserve_pool_size");
        keys.put("reserve_pool_size", "reserve_pool_size");
        keys.put("pool_mode", "pool_mode");
        keys.put("max_db_connections", "max_db_connections");
        return keys;
    }
}
