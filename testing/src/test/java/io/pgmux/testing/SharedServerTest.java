package io.pgmux.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import org.junit.jupiter.api.Test;

class SharedServerTest {

    @Test
    void startsOneServerPerJvm() {
        assertSame(SharedServer.get(), SharedServer.get());
    }

    @Test
    void usesTheEmbeddedServerWhenNoUrlIsGiven() {
        assumeTrue(absent("pg.test.url", "PG_TEST_URL") && absent("pg.test.source", "PG_TEST_SOURCE"),
                "a server source is configured");
        assertInstanceOf(EmbeddedServer.class, SharedServer.get());
    }

    @Test
    void explainsWhyTestcontainersCannotRunWithoutDocker() {
        assumeTrue(System.getenv("DOCKER_HOST") == null && !Files.exists(Path.of("/var/run/docker.sock")),
                "a Docker engine may be reachable here");
        Optional<String> reason = SharedServer.containersUnavailableReason();
        assertTrue(reason.isPresent());
        assertTrue(reason.get().contains("Docker"), reason.get());
    }

    @Test
    void readsTheSourceCaseInsensitively() {
        assertEquals(SharedServer.Source.TESTCONTAINERS, SharedServer.Source.parse(" Testcontainers "));
    }

    @Test
    void rejectsAnUnknownSource() {
        assertThrows(IllegalArgumentException.class, () -> SharedServer.Source.parse("docker"));
    }

    private static boolean absent(String property, String environmentVariable) {
        return System.getProperty(property) == null && System.getenv(environmentVariable) == null;
    }
}
