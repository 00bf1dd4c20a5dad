package io.pgmux.proxy.server;

import io.pgmux.proxy.config.TlsMode;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/** Parses a database target written as a {@code postgresql://} URL. */
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
}
