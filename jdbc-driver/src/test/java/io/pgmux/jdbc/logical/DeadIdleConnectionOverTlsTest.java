package io.pgmux.jdbc.logical;

import static io.pgmux.jdbc.logical.TestPools.one;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.jdbc.pool.JdbcPool;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestCertificates;
import io.pgmux.testing.TestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** The check for backends that ended while idle sees through TLS: it looks at the socket under it. */
@PostgresTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DeadIdleConnectionOverTlsTest {
    private final TestDatabase db;
    private final TestPools pools;

    DeadIdleConnectionOverTlsTest(TestDatabase db) {
        this.db = db;
        this.pools = new TestPools(db);
    }

    @BeforeAll
    void serveTls(@TempDir Path directory) throws Exception {
        TestCertificates.Issued server = TestCertificates.authority(directory, "pgmux test CA")
                .issue("server", "localhost", "dns:localhost,ip:127.0.0.1");
        db.server().enableTls(server.certificate(), server.privateKey());
    }

    @AfterEach
    void closePools() {
        pools.close();
    }

    @Test
    void noStatementRunsOnABackendTerminatedWhileIdle() throws SQLException {
        String app = "dead-idle-tls";
        Properties tls = new Properties();
        tls.setProperty("sslmode", "require");
        JdbcPool pool = pools.open(app, PoolConfig.jdbcDefaults().defaultPoolSize(DeadIdleConnectionTest.POOL_SIZE),
                tls);
        try (Connection c = pool.getConnection()) {
            assertEquals("t", one(c, "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"));
        }
        DeadIdleConnectionTest.borrowAfterEachTermination(db, pool, app, true);
    }
}
