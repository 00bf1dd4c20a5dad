package io.pgmux.jdbc.replicas;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.jdbc.PgMuxDataSource;
import io.pgmux.testing.SharedStandbyPair;
import io.pgmux.testing.StandbyPair;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * What Spring's {@code @Transactional(readOnly = true)} does through its transaction manager (setReadOnly(true), and
 * with enforceReadOnly a {@code SET TRANSACTION READ ONLY} inside the transaction) routes to the standby; a
 * transaction that writes, before and after it on the same pool, runs on the primary.
 */
class SpringReadOnlyRoutingTest {
    private static StandbyPair pair;
    private PgMuxDataSource ds;

    @BeforeAll
    static void startPair() {
        pair = SharedStandbyPair.withEmptyLedger();
    }

    @BeforeEach
    void pool() {
        ds = new PgMuxDataSource();
        ds.setJdbcUrl("jdbc:postgresql://" + pair.hostList() + "/postgres?readRouting=replicas");
        ds.setUsername(pair.superuser());
    }

    @AfterEach
    void close() {
        ds.close();
    }

    private TransactionTemplate transactions(boolean readOnly, boolean enforceReadOnly) {
        DataSourceTransactionManager manager = new DataSourceTransactionManager(ds);
        manager.setEnforceReadOnly(enforceReadOnly);
        TransactionTemplate template = new TransactionTemplate(manager);
        template.setReadOnly(readOnly);
        return template;
    }

    private Boolean inRecovery(TransactionTemplate template) {
        JdbcTemplate jdbc = new JdbcTemplate(ds);
        return template.execute(status -> jdbc.queryForObject("SELECT pg_is_in_recovery()", Boolean.class));
    }

    @Test
    void aReadOnlyTransactionRunsOnTheStandby() {
        assertTrue(inRecovery(transactions(true, false)));
    }

    @Test
    void aReadOnlyTransactionWithEnforceReadOnlyRunsOnTheStandby() {
        assertTrue(inRecovery(transactions(true, true)));
    }

    @Test
    void writingTransactionsAroundAReadOnlyOneRunOnThePrimary() {
        JdbcTemplate jdbc = new JdbcTemplate(ds);
        TransactionTemplate writes = transactions(false, false);
        assertEquals(Integer.valueOf(1), writes.<Integer>execute(status -> jdbc.update("INSERT INTO ledger VALUES (1)")));
        assertTrue(inRecovery(transactions(true, false)));
        assertFalse(inRecovery(writes));
        assertEquals(Integer.valueOf(1), writes.<Integer>execute(status -> jdbc.update("INSERT INTO ledger VALUES (2)")));
    }
}
