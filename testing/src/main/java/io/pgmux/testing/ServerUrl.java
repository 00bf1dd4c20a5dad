package io.pgmux.testing;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * The superuser address given in {@code PG_TEST_URL}: either libpq's {@code postgresql://user:pw@host:port/db}
 * or pgjdbc's {@code jdbc:postgresql://host:port/db?user=..&password=..}. Only a single TCP host is accepted;
 * query parameters other than user and password are ignored.
 */
record ServerUrl(String host, int port, String user, String password, String database) {

    static final int DEFAULT_PORT = 5432;
    static final String DEFAULT_DATABASE = "postgres";

    static ServerUrl parse(String url) {
        String text = url.strip();
        boolean jdbc = text.startsWith("jdbc:postgresql:");
        String withoutJdbc = jdbc ? text.substring("jdbc:".length()) : text;
        URI uri;
        try {
            uri = new URI(withoutJdbc.startsWith("postgres://")
                    ? "postgresql" + withoutJdbc.substring("postgres".length())
                    : withoutJdbc);
        } catch (URISyntaxException e) {
            throw invalid(url, e.getMessage());
        }
        if (!"postgresql".equals(uri.getScheme()) || uri.getRawAuthority() == null) {
            throw invalid(url, "expected postgresql://user:password@host:port/database "
                    + "or jdbc:postgresql://host:port/database?user=..&password=..");
        }
        if (uri.getHost() == null || uri.getRawAuthority().contains(",")) {
            throw invalid(url, "it must name exactly one TCP host");
        }
        Map<String, String> query = queryParameters(uri.getRawQuery());
        String user = query.get("user");
        String password = query.get("password");
        String userInfo = uri.getRawUserInfo();
        if (userInfo != null) {
            int colon = userInfo.indexOf(':');
            user = decode(colon < 0 ? userInfo : userInfo.substring(0, colon));
            password = colon < 0 ? password : decode(userInfo.substring(colon + 1));
        }
        if (user == null || user.isEmpty()) {
            throw invalid(url, "it must name the superuser");
        }
        String path = uri.getRawPath() == null ? "" : uri.getRawPath();
        String database = path.length() > 1 ? decode(path.substring(1)) : DEFAULT_DATABASE;
        int port = uri.getPort() < 0 ? DEFAULT_PORT : uri.getPort();
        return new ServerUrl(uri.getHost(), port, user, password == null ? "" : password, database);
    }

    private static Map<String, String> queryParameters(String rawQuery) {
        Map<String, String> parameters = new HashMap<>();
        if (rawQuery == null) {
            return parameters;
        }
        for (String pair : rawQuery.split("&")) {
            int equals = pair.indexOf('=');
            if (equals > 0) {
                parameters.put(decode(pair.substring(0, equals)), decode(pair.substring(equals + 1)));
            }
        }
        return parameters;
    }

    private static String decode(String text) {
        return URLDecoder.decode(text.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    private static IllegalArgumentException invalid(String url, String why) {
        return new IllegalArgumentException("PG_TEST_URL is not usable (" + why + "): " + redacted(url));
    }

    /** The URL with any password replaced, for messages. */
    static String redacted(String url) {
        return url.replaceAll("(//[^/:@]*:)[^@/]*@", "$1***@").replaceAll("(?i)(password=)[^&]*", "$1***");
    }

    @Override
    public String toString() {
        return "ServerUrl[host=" + host + ", port=" + port + ", user=" + user + ", database=" + database + "]";
    }
}
