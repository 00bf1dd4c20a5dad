package io.pgmux.testing;

import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.PostgreSQLContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * PostgreSQL 17 in a Docker container, for machines where the embedded binaries cannot run but a Docker
 * engine answers. Only touched after {@link SharedServer} has seen Testcontainers on the class path.
 *
 * <p>PostgreSQL is the container's main process, so it cannot stop or restart in place; those helpers
 * report themselves unavailable. Clients reach it through Docker's port mapping, arriving from the
 * container network's gateway, so its pg_hba.conf rules match any address.
 */
final class ContainerServer extends PgServer {

    private static final String IMAGE = "postgres:17-alpine";
    private static final String NO_LIFECYCLE =
            "PostgreSQL is the main process of its Testcontainers container and cannot restart in place";

    private final PostgreSQLContainer<?> container;

    private ContainerServer(PostgreSQLContainer<?> container) {
        this.container = container;
    }

    /** Why no container can be started here, or empty when a Docker engine answers. */
    static Optional<String> unavailableReason() {
        return DockerClientFactory.instance().isDockerAvailable()
                ? Optional.empty()
                : Optional.of("no Docker engine answers");
    }

    static ContainerServer launch() {
        PostgreSQLContainer<?> container = new PostgreSQLContainer<>(DockerImageName.parse(IMAGE));
        container.withCommand("postgres",
                        "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
                        "-c", "max_connections=" + EmbeddedServer.DEFAULT_SETTINGS.get("max_connections"),
                        "-c", "logging_collector=on", "-c", "log_filename=postgresql.log",
                        "-c", "log_rotation_age=0", "-c", "log_rotation_size=0")
                // The readiness message goes to the collector's file, not to the container's output.
                .waitingFor(Wait.forListeningPort().withStartupTimeout(Duration.ofSeconds(120)));
        container.start();
        ContainerServer server = new ContainerServer(container);
        server.installAuthRules();
        return server;
    }

    @Override
    public String host() {
        return container.getHost();
    }

    @Override
    public int port() {
        return container.getMappedPort(PostgreSQLContainer.POSTGRESQL_PORT);
    }

    @Override
    public String superuser() {
        return container.getUsername();
    }

    @Override
    public String superuserPassword() {
        return container.getPassword();
    }

    @Override
    public String description() {
        return "PostgreSQL in a Testcontainers container (" + IMAGE + ") on " + host() + ":" + port();
    }

    @Override
    public void setMaxConnections(int maxConnections) {
        unsupported("set max_connections", NO_LIFECYCLE);
    }

    @Override
    public void enableTls(Path certificate, Path privateKey) {
        unsupported("turn TLS on", "PostgreSQL runs in a container and cannot read the certificate files");
    }

    @Override
    public void stop() {
        unsupported("stop the server", NO_LIFECYCLE);
    }

    @Override
    public void start() {
        unsupported("start the server", NO_LIFECYCLE);
    }

    @Override
    public void restart() {
        unsupported("restart the server", NO_LIFECYCLE);
    }

    @Override
    boolean ownsAuthRules() {
        return true;
    }

    @Override
    String maintenanceDatabase() {
        return container.getDatabaseName();
    }

    @Override
    void shutdown() {
        forgetAdminConnection();
        container.stop();
    }

    /**
     * Rewrites the server's own hba file through SQL (the server process owns it) and reloads. The reload
     * is asynchronous; {@link TestDatabase#createUser} probes until the rules are in force.
     */
    private void installAuthRules() {
        List<String> lines = AuthRules.anyAddressLines();
        String rows = lines.stream().map(line -> "('" + line + "')").collect(Collectors.joining(", "));
        admin().call("install pg_hba.conf", connection -> {
            try (Statement statement = connection.createStatement()) {
                String hbaFile;
                try (ResultSet row = statement.executeQuery("SHOW hba_file")) {
                    row.next();
                    hbaFile = row.getString(1);
                }
                statement.execute("COPY (VALUES " + rows + ") TO '" + hbaFile.replace("'", "''") + "'");
                statement.execute("SELECT pg_reload_conf()");
            }
            return null;
        });
    }
}
