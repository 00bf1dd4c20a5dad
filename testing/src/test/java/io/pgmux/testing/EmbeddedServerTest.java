package io.pgmux.testing;

import static io.pgmux.testing.TestUsersTest.query;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@PostgresTest
class EmbeddedServerTest {

    private final TestDatabase database;

    EmbeddedServerTest(TestDatabase database) {
        this.database = database;
    }

    @BeforeEach
    void onlyForTheEmbeddedServer() {
        assumeTrue(database.server() instanceof EmbeddedServer, "tests run against " + database.server().description());
    }

    @Test
    void runsPostgresql17() {
        assertEquals(17, database.server().serverVersionNumber() / 10000);
    }

    @Test
    void listensOnLoopback() throws SQLException {
        try (Connection connection = database.connect()) {
            assertEquals("127.0.0.1", query(connection, "SELECT host(inet_server_addr())"));
        }
    }

    @Test
    void trustsTheSuperuserFromLoopback() throws IOException {
        assertEquals(0, AuthProbe.requestedAuthentication(database.host(), database.port(),
                database.superuser(), database.name()));
    }

    @Test
    void runsInAUserNamespaceOfItsOwnWhenTestsRunAsRoot() throws Exception {
        Path self = Path.of("/proc/self");
        assumeTrue(Files.isDirectory(self), "no /proc here");
        assumeTrue(uid(self) == 0, "tests do not run as root");
        Path backend;
        try (Connection connection = database.connect()) {
            backend = Path.of("/proc", query(connection, "SELECT pg_backend_pid()"));
            assertNotEquals(Files.readSymbolicLink(self.resolve("ns/user")),
                    Files.readSymbolicLink(backend.resolve("ns/user")));
        }
    }

    private static long uid(Path process) throws IOException {
        return Files.readAllLines(process.resolve("status")).stream()
                .filter(line -> line.startsWith("Uid:"))
                .map(line -> Long.parseLong(line.split("\\s+")[1]))
                .findFirst().orElseThrow();
    }
}
