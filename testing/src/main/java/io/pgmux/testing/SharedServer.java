package io.pgmux.testing;

import java.io.IOException;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one server of this JVM, chosen and started on first use and stopped when the JVM exits:
 * <ol>
 *   <li>{@code -Dpg.test.url} or {@code PG_TEST_URL}, if set: that server;</li>
 *   <li>otherwise embedded PostgreSQL;</li>
 *   <li>Testcontainers only if asked for ({@code -Dpg.test.source=testcontainers} or
 *       {@code PG_TEST_SOURCE}), or if the embedded server fails to start, and then only where a Docker
 *       engine answers.</li>
 * </ol>
 * A failure to start is remembered, so every later test class fails at once with the same cause instead of
 * waiting for its own start-up timeout.
 */
final class SharedServer {

    enum Source {
        AUTO, EMBEDDED, TESTCONTAINERS;

        static Source parse(String value) {
            try {
                return valueOf(value.strip().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("pg.test.source must be auto, embedded or testcontainers, not '"
                        + value + "'", e);
            }
        }
    }

    private static final Logger LOG = LoggerFactory.getLogger(SharedServer.class);
    private static final String TESTCONTAINERS_CLASS = "org.testcontainers.DockerClientFactory";
    private static final ReentrantLock LOCK = new ReentrantLock();
    private static PgServer server;
    private static RuntimeException failure;

    private SharedServer() {
    }

    static PgServer get() {
        LOCK.lock();
        try {
            if (server == null && failure == null) {
                try {
                    server = start(setting("pg.test.url", "PG_TEST_URL"),
                            Source.parse(setting("pg.test.source", "PG_TEST_SOURCE").orElse("auto")));
                    Runtime.getRuntime().addShutdownHook(new Thread(server::shutdown, "pgmux-test-server-shutdown"));
                } catch (RuntimeException e) {
                    failure = e;
                }
            }
            if (failure != null) {
                throw new IllegalStateException("no PostgreSQL for tests: " + failure.getMessage(), failure);
            }
            return server;
        } finally {
            LOCK.unlock();
        }
    }

    /** Why the Testcontainers source cannot be used here, or empty when it can. */
    static Optional<String> containersUnavailableReason() {
        try {
            Class.forName(TESTCONTAINERS_CLASS, false, SharedServer.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            return Optional.of("org.testcontainers:postgresql is not on the test class path");
        }
        return ContainerServer.unavailableReason();
    }

    private static PgServer start(Optional<String> url, Source source) {
        if (url.isPresent()) {
            if (source != Source.AUTO) {
                throw new IllegalArgumentException("PG_TEST_URL is set, so pg.test.source=" + source
                        + " would be ignored; unset one of them");
            }
            PgServer external = ExternalServer.connect(ServerUrl.parse(url.get()));
            LOG.info("tests use {}", external.description());
            return external;
        }
        if (source == Source.TESTCONTAINERS) {
            Optional<String> unavailable = containersUnavailableReason();
            if (unavailable.isPresent()) {
                throw new IllegalStateException("pg.test.source=testcontainers, but " + unavailable.get());
            }
            return startContainer();
        }
        try {
            return EmbeddedServer.launch();
        } catch (IOException | RuntimeException embeddedFailure) {
            if (source == Source.EMBEDDED) {
                throw new IllegalStateException("embedded PostgreSQL did not start: " + embeddedFailure, embeddedFailure);
            }
            Optional<String> unavailable = containersUnavailableReason();
            if (unavailable.isPresent()) {
                throw new IllegalStateException("embedded PostgreSQL did not start (" + embeddedFailure
                        + ") and Testcontainers cannot stand in: " + unavailable.get(), embeddedFailure);
            }
            LOG.warn("embedded PostgreSQL did not start ({}); using Testcontainers instead", embeddedFailure.toString());
            return startContainer();
        }
    }

    private static PgServer startContainer() {
        PgServer container = ContainerServer.launch();
        LOG.info("tests use {}", container.description());
        return container;
    }

    private static Optional<String> setting(String property, String environmentVariable) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) {
            value = System.getenv(environmentVariable);
        }
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value);
    }
}
