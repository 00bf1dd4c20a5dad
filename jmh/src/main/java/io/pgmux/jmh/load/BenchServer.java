package io.pgmux.jmh.load;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * The PostgreSQL a harness runs against: the one {@code --url} names, or, without it, an embedded PostgreSQL
 * started for the run in a scratch directory and stopped by {@link #close()}.
 */
final class BenchServer implements AutoCloseable {
    private final String host;
    private final int port;
    private final String database;
    private final String user;
    private final String password;
    private final EmbeddedPostgres embedded;

    private BenchServer(String host, int port, String database, String user, String password,
            EmbeddedPostgres embedded) {
        this.host = host;
        this.port = port;
        this.database = database;
        this.user = user;
        this.password = password;
        this.embedded = embedded;
    }

    /** The server {@code --url}, {@code --user} and {@code --password} name, else an embedded one. */
    static BenchServer fromOptions(LoadOptions o) throws IOException {
        if (!o.has("url")) {
            EmbeddedPostgres pg = EmbeddedPostgres.builder().start();
            return new BenchServer("localhost", pg.getPort(), "postgres", "postgres", "postgres", pg);
        }
        ServerTarget target = o.target();
        URI uri = URI.create(target.url().substring("jdbc:".length()));
        if (uri.getHost() == null || uri.getPath() == null || uri.getPath().length() < 2) {
            throw new IllegalArgumentException("--url needs a host and a database: " + target.url());
        }
        return new BenchServer(uri.getHost(), uri.getPort() < 0 ? 5432 : uri.getPort(), uri.getPath().substring(1),
                target.user(), target.password(), null);
    }

    /** The proxy's form of the address, {@code postgresql://user:password@host:port/db}, without TLS. */
    String proxyUrl() {
        StringBuilder url = new StringBuilder("postgresql://");
        if (user != null) {
            url.append(encode(user));
            if (password != null) {
                url.append(':').append(encode(password));
            }
            url.append('@');
        }
        return url.append(host).append(':').append(port).append('/').append(encode(database))
                .append("?sslmode=disable").toString();
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    String description() {
        return (embedded != null ? "embedded PostgreSQL" : "PostgreSQL") + " on " + host + ":" + port;
    }

    @Override
    public void close() throws IOException {
        if (embedded != null) {
            embedded.close();
        }
    }
}
