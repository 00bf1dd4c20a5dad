package io.pgmux.examples.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.jdbc.PgMuxDataSource;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The example application as shipped, pointed at the fixture's PostgreSQL. */
@PostgresTest
@SpringBootTest(properties = {"example.transfers=200", "example.threads=8"})
@DirtiesContext
class ExampleApplicationTest {
    /** Set by the constructor, which runs before the Spring context is made and reads it. */
    private static TestDatabase database;

    @Autowired
    private TransferRun run;
    @Autowired
    private DataSource dataSource;

    ExampleApplicationTest(TestDatabase database) {
        ExampleApplicationTest.database = database;
    }

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry properties) {
        properties.add("spring.datasource.url", () -> database.jdbcUrl());
        properties.add("spring.datasource.username", () -> database.superuser());
        properties.add("spring.datasource.password", () -> database.superuserPassword());
    }

    @Test
    void transfersKeepTheTotalWhileSharingFourServerConnections() {
        assertEquals(10 * 100, run.totalAfter());
        PgMuxDataSource pgmux = assertInstanceOf(PgMuxDataSource.class, dataSource);
        assertEquals(4, pgmux.getMaximumPoolSize());
        assertTrue(pgmux.getPoolMXBean().getTotalConnections() <= 4);
        assertTrue(pgmux.getPoolMXBean().getTransactionCount() >= 200);
    }
}
