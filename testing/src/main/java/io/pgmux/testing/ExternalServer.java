package io.pgmux.testing;

import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;

/**
 * A server the fixture does not own, named by {@code PG_TEST_URL} or {@code -Dpg.test.url}. The fixture
 * creates and drops its own databases and roles there but never stops the server or edits its files; the
 * helpers that would need to report themselves unavailable.
 */
final class ExternalServer extends PgServer {

    /** {@code pg_terminate_backend(pid, timeout)} appeared in 14. */
    static final int MINIMUM_VERSION = 140000;
    private static final String NOT_OURS = "the fixture does not stop or reconfigure a server given by PG_TEST_URL";

    private final ServerUrl url;

    private ExternalServer(ServerUrl url) {
        this.url = url;
    }

    static ExternalServer connect(ServerUrl url) {
        ExternalServer server = new ExternalServer(url);
        server.admin().call("check the PG_TEST_URL server", connection -> {
            try (Statement statement = connection.createStatement();
                 ResultSet row = statement.executeQuery("SELECT rolsuper, current_setting('server_version_num')::int"
                         + " FROM pg_roles WHERE rolname = current_user")) {
                row.next();
                if (!row.getBoolean(1)) {
                    throw new IllegalStateException("PG_TEST_URL must name a superuser; " + url.user() + " is not one");
                }
                if (row.getInt(2) < MINIMUM_VERSION) {
                    throw new IllegalStateException("the PG_TEST_URL server is version " + row.getInt(2)
                            + "; the fixture needs PostgreSQL 14 or later");
                }
            }
            return null;
        });
        return server;
    }

    @Override
    public String host() {
        return url.host();
    }

    @Override
    public int port() {
        return url.port();
    }

    @Override
    public String superuser() {
        return url.user();
    }

    @Override
    public String superuserPassword() {
        return url.password();
    }

    @Override
    public String description() {
        return "PostgreSQL at " + url.host() + ":" + url.port() + " as " + url.user() + " (PG_TEST_URL)";
    }

    @Override
    public void setMaxConnections(int maxConnections) {
        unsupported("set max_connections", NOT_OURS);
    }

    @Override
    public void enableTls(Path certificate, Path privateKey) {
        unsupported("turn TLS on", NOT_OURS + " (nor can it know the server reads this machine's files)");
    }

    @Override
    public void stop() {
        unsupported("stop the server", NOT_OURS);
    }

    @Override
    public void start() {
        unsupported("start the server", NOT_OURS);
    }

    @Override
    public void restart() {
        unsupported("restart the server", NOT_OURS);
    }

    @Override
    boolean ownsAuthRules() {
        return false;
    }

    @Override
    String maintenanceDatabase() {
        return url.database();
    }

    @Override
    void shutdown() {
        forgetAdminConnection();
    }
}
