package io.pgmux.proxy.server;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

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
     * sslmode (also spelled server_tls_sslmode) to the proxy's server_tls_sslmode.
     *
     * @throws IllegalArgumentException for an unknown or malformed key (PgBouncer keys pgmux does not
     *     implement yet, such as pool_size, are named in the message)
     */
    public static ServerTarget fromConnectString(String name, String connectString) {
        String host = "127.0.0.1";
        int port = DEFAULT_PORT;
        String dbname = name;
        String user = null;
        String password = null;
        TlsMode tls = null;
        int i = 0;
        String s = connectString;
        while (i < s.length()) {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            if (i == s.length()) {
                break;
            }
            int eq = s.indexOf('=', i);
            if (eq < 0) {
                throw new IllegalArgumentException("database " + name + ": expected key=value at \""
                        + s.substring(i) + "\"");
            }
            String key = s.substring(i, eq).trim();
            StringBuilder value = new StringBuilder();
            i = eq + 1;
            if (i < s.length() && s.charAt(i) == '\'') {
                i++;
                while (i < s.length() && !(s.charAt(i) == '\'' && (i + 1 == s.length() || s.charAt(i + 1) != '\''))) {
                    if (s.charAt(i) == '\'') {
                        i++;
                    }
                    value.append(s.charAt(i++));
                }
                i++;
            } else {
                while (i < s.length() && !Character.isWhitespace(s.charAt(i))) {
                    value.append(s.charAt(i++));
                }
            }
            String v = value.toString();
            switch (key) {
                case "host" -> host = v;
                case "port" -> {
                    try {
                        port = Integer.parseInt(v);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("database " + name + ": port must be a number");
                    }
                }
                case "dbname" -> dbname = v;
                case "user" -> user = v;
                case "password" -> password = v;
                case "server_tls_sslmode", "sslmode" -> tls = TlsMode.fromConfig(v);
                default -> throw new IllegalArgumentException("database " + name + ": unsupported key \"" + key
                        + "\" (supported: host, port, dbname, user, password, sslmode)");
            }
        }
        return new ServerTarget(host, port, dbname, user, password, tls);
    }
}
