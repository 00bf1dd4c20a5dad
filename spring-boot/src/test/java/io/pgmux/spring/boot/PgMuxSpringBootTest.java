package io.pgmux.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.MeterRegistry;
import io.pgmux.core.config.PoolMode;
import io.pgmux.core.stats.PgMuxPoolMXBean;
import io.pgmux.jdbc.PgMuxDataSource;
import io.pgmux.spring.boot.AccountService.ServerTransaction;
import io.pgmux.testing.Await;
import io.pgmux.testing.Backends;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.jdbc.metadata.CompositeDataSourcePoolMetadataProvider;
import org.springframework.boot.jdbc.metadata.DataSourcePoolMetadata;
import org.springframework.boot.jdbc.metadata.DataSourcePoolMetadataProvider;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A Spring Boot application with pgmux's starter and Actuator, against the fixture's PostgreSQL: one server
 * connection, transaction pooling. Run on each Spring Boot line by a subclass that reads Actuator's health
 * through the line's own API.
 */
@PostgresTest
@SpringBootTest(classes = TestApplication.class, properties = {
        "spring.datasource.pgmux.pool-mode=transaction",
        "spring.datasource.pgmux.maximum-pool-size=1",
        "spring.datasource.pgmux.pool-name=spring",
        "spring.datasource.pgmux.connection-timeout=20000",
        "spring.datasource.pgmux.data-source-properties.ApplicationName=" + PgMuxSpringBootTest.APPLICATION})
@DirtiesContext
abstract class PgMuxSpringBootTest {
    static final String APPLICATION = "pgmux-spring-boot-test";
    /** Set by the constructor, which runs before the Spring context is made and reads it. */
    private static TestDatabase database;

    @Autowired
    private DataSource dataSource;
    @Autowired
    private JdbcTemplate jdbc;
    @Autowired
    private AccountService service;
    @Autowired
    private List<DataSourcePoolMetadataProvider> metadataProviders;
    @Autowired
    private MeterRegistry meterRegistry;

    PgMuxSpringBootTest(TestDatabase database) {
        PgMuxSpringBootTest.database = database;
    }

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry properties) {
        properties.add("spring.datasource.url", () -> database.jdbcUrl());
        properties.add("spring.datasource.username", () -> database.superuser());
        properties.add("spring.datasource.password", () -> database.superuserPassword());
    }

    /** Actuator's {@code db} health component, as {@code /actuator/health/db} shows it. */
    record DbHealth(String status, Map<String, Object> details) {
    }

    /** The {@code db} component of Actuator's health registry, with its details. */
    abstract DbHealth dbHealth();

    private PgMuxPoolMXBean pool() {
        return ((PgMuxDataSource) dataSource).getPoolMXBean();
    }

    private static void await(BooleanSupplier condition, String what) {
        Await.until(condition::getAsBoolean, Duration.ofSeconds(10), what);
    }

    @Test
    void theDataSourceIsAPgMuxDataSourceBoundFromSpringDatasourcePgmux() {
        PgMuxDataSource pgmux = assertInstanceOf(PgMuxDataSource.class, dataSource);
        assertEquals(database.jdbcUrl(), pgmux.getJdbcUrl());
        assertEquals(PoolMode.TRANSACTION, pgmux.getPoolMode());
        assertEquals(1, pgmux.getMaximumPoolSize());
        assertEquals(20_000, pgmux.getConnectionTimeout());
        assertEquals("spring", pgmux.getPoolName());
    }

    @Test
    void statementsOfATransactionalMethodRunInOneServerTransaction() {
        ServerTransaction[] inside = service.twoStatements();
        assertEquals(inside[0], inside[1]);
        // Outside a transaction each statement is a transaction of its own.
        assertNotEquals(service.where().txid(), service.where().txid());
    }

    @Test
    void withOneServerConnectionASecondTransactionWaitsForTheFirstToCommit() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            CountDownLatch firstStarted = new CountDownLatch(1);
            CountDownLatch firstProceeds = new CountDownLatch(1);
            Future<ServerTransaction[]> first = threads.submit(() -> service.heldOpen(firstStarted, firstProceeds));
            assertTrue(firstStarted.await(20, TimeUnit.SECONDS));
            Future<ServerTransaction[]> second = threads.submit(service::twoStatements);
            await(() -> pool().getThreadsAwaitingConnection() == 1, "the second transaction waits for the server");
            firstProceeds.countDown();
            ServerTransaction[] a = first.get(20, TimeUnit.SECONDS);
            ServerTransaction[] b = second.get(20, TimeUnit.SECONDS);
            assertEquals(a[0], a[1], "the first transaction kept its server transaction while the second waited");
            assertEquals(b[0], b[1]);
            assertEquals(a[0].backendPid(), b[0].backendPid(), "both ran on the one server connection");
            assertTrue(b[0].txid() > a[0].txid(), "the second began after the first ended");
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void actuatorPoolMetadataCountsTheServerConnectionsPostgresSees() throws Exception {
        DataSourcePoolMetadata metadata = new CompositeDataSourcePoolMetadataProvider(metadataProviders)
                .getDataSourcePoolMetadata(dataSource);
        Backends ours = Backends.withApplicationName(APPLICATION);
        jdbc.queryForObject("SELECT 1", Integer.class);
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                st.execute("SELECT 1");
            }
            assertEquals(1, database.countConnections(ours));
            assertEquals(1, metadata.getActive());
            assertEquals(0, metadata.getIdle());
            assertEquals(1.0f, metadata.getUsage());
            c.commit();
        }
        assertEquals(1, database.countConnections(ours));
        assertEquals(0, metadata.getActive());
        assertEquals(1, metadata.getIdle());
        assertEquals(0.0f, metadata.getUsage());
        assertEquals(1, metadata.getMax());
        assertEquals(0, metadata.getMin());
        assertEquals(Boolean.TRUE, metadata.getDefaultAutoCommit());
    }

    @Test
    void poolMetersAppearInTheApplicationsMeterRegistry() throws Exception {
        jdbc.queryForObject("SELECT 1", Integer.class);
        assertEquals("transaction", meterRegistry.get("pgmux.connections.active").tag("pool", "spring").gauge()
                .getId().getTag("mode"));
        await(() -> meterRegistry.get("pgmux.queries").tag("pool", "spring").functionCounter().count() > 0,
                "queries counted");
        // Spring Boot's own pool gauges, read through pgmux's pool metadata.
        assertEquals(1, meterRegistry.get("jdbc.connections.max").gauge().value());
    }

    @Test
    void springsDataSourceHealthIndicatorReportsUp() {
        DbHealth db = dbHealth();
        assertEquals("UP", db.status());
        assertEquals("PostgreSQL", db.details().get("database"));
    }
}
