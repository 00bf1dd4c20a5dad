package io.pgmux.jmh.load;

import java.util.Properties;

/** The server every variant connects to: a {@code jdbc:postgresql:} URL and the login. */
final class ServerTarget {
    private final String url;
    private final String user;
    private final String password;

    ServerTarget(String url, String user, String password) {
        if (!url.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException("--url must be a jdbc:postgresql: URL, not " + url);
        }
        this.url = url;
        this.user = user;
        this.password = password;
    }

    String url() {
        return url;
    }

    String user() {
        return user;
    }

    String password() {
        return password;
    }

    /** pgjdbc's login properties. */
    Properties properties() {
        Properties p = new Properties();
        if (user != null) {
            p.setProperty("user", user);
        }
        if (password != null) {
            p.setProperty("password", password);
        }
        return p;
    }
}
