package io.pgmux.jdbc.frameworks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.pgmux.core.config.PoolMode;
import io.pgmux.jdbc.PgMuxDriver;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Spring's JdbcTemplate and TransactionTemplate through {@code jdbc:pgmux} in session and transaction mode,
 * with a pool of two server connections: a REQUIRES_NEW transaction inside another holds a second connection
 * in the same thread, commits on its own, and the outer one still rolls back alone.
 */
@PostgresTest
class SpringTransactionsThroughPgmuxTest {
    private final TestDatabase db;

    SpringTransactionsThroughPgmuxTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void closePools() {
        PgMuxDriver.closeAll();
    }

    @ParameterizedTest
    @EnumSource(value = PoolMode.class, names = {"SESSION", "TRANSACTION"})
    void anInnerRequiresNewTransactionCommitsWhileTheOuterRollsBack(PoolMode mode) {
        String table = "spring_log_" + mode.name().toLowerCase(Locale.ROOT);
        DriverManagerDataSource ds = new DriverManagerDataSource(PgmuxUrls.url(db, mode, table, 2), db.superuser(),
                db.superuserPassword());
        JdbcTemplate jdbc = new JdbcTemplate(ds);
        jdbc.execute("CREATE TABLE " + table + " (what text NOT NULL)");
        DataSourceTransactionManager transactions = new DataSourceTransactionManager(ds);
        TransactionTemplate outer = new TransactionTemplate(transactions);
        TransactionTemplate inner = new TransactionTemplate(transactions);
        inner.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        AtomicInteger outerPid = new AtomicInteger();
        AtomicInteger innerPid = new AtomicInteger();

        outer.executeWithoutResult(status -> {
            jdbc.update("INSERT INTO " + table + " VALUES ('outer')");
            outerPid.set(jdbc.queryForObject("SELECT pg_backend_pid()", Integer.class));
            inner.executeWithoutResult(s -> {
                jdbc.update("INSERT INTO " + table + " VALUES ('inner')");
                innerPid.set(jdbc.queryForObject("SELECT pg_backend_pid()", Integer.class));
            });
            assertEquals(List.of("inner", "outer"),
                    jdbc.queryForList("SELECT what FROM " + table + " ORDER BY what", String.class),
                    "the outer transaction sees the inner one's commit and its own row");
            status.setRollbackOnly();
        });

        assertNotEquals(outerPid.get(), innerPid.get(), "the two transactions ran on two server connections");
        assertEquals(List.of("inner"), jdbc.queryForList("SELECT what FROM " + table, String.class));
    }

    @ParameterizedTest
    @EnumSource(value = PoolMode.class, names = {"SESSION", "TRANSACTION"})
    void aBatchUpdateInATransactionTemplateCommitsEveryRow(PoolMode mode) {
        String table = "spring_batch_" + mode.name().toLowerCase(Locale.ROOT);
        DriverManagerDataSource ds = new DriverManagerDataSource(PgmuxUrls.url(db, mode, table, 2), db.superuser(),
                db.superuserPassword());
        JdbcTemplate jdbc = new JdbcTemplate(ds);
        jdbc.execute("CREATE TABLE " + table + " (n int PRIMARY KEY)");
        TransactionTemplate tx = new TransactionTemplate(new DataSourceTransactionManager(ds));

        int[][] counts = tx.execute(status -> jdbc.batchUpdate("INSERT INTO " + table + " VALUES (?)",
                List.of(1, 2, 3, 4, 5), 2, (ps, n) -> ps.setInt(1, n)));

        assertEquals(3, counts.length, "five rows in batches of two");
        assertEquals(5, jdbc.queryForObject("SELECT count(*) FROM " + table, Integer.class));
    }
}
