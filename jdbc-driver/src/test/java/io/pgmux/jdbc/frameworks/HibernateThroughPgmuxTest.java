package io.pgmux.jdbc.frameworks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.jdbc.PgMuxDriver;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.Sql;
import io.pgmux.testing.TestDatabase;
import jakarta.persistence.OptimisticLockException;
import java.sql.Connection;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.StaleStateException;
import org.hibernate.cfg.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Hibernate through {@code jdbc:pgmux} in session and transaction mode: ids from a database sequence, inserts
 * sent as JDBC batches, and a version column that refuses a stale update.
 */
@PostgresTest
class HibernateThroughPgmuxTest {
    private final TestDatabase db;
    private SessionFactory sessions;

    HibernateThroughPgmuxTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void close() {
        if (sessions != null) {
            sessions.close();
        }
        PgMuxDriver.closeAll();
    }

    private SessionFactory open(PoolMode mode, String scenario) {
        String schema = scenario + "_" + mode.name().toLowerCase(Locale.ROOT);
        sessions = new Configuration()
                .addAnnotatedClass(Account.class)
                .setProperty("hibernate.connection.url", PgmuxUrls.url(db, mode, schema, 4))
                .setProperty("hibernate.connection.username", db.superuser())
                .setProperty("hibernate.connection.password", db.superuserPassword())
                .setProperty("hibernate.default_schema", schema)
                .setProperty("hibernate.hbm2ddl.create_namespaces", "true")
                .setProperty("hibernate.hbm2ddl.auto", "create")
                .setProperty("hibernate.jdbc.batch_size", "10")
                .setProperty("hibernate.order_inserts", "true")
                .setProperty("hibernate.generate_statistics", "true")
                .buildSessionFactory();
        return sessions;
    }

    @ParameterizedTest
    @EnumSource(value = PoolMode.class, names = {"SESSION", "TRANSACTION"})
    void batchedInsertsTakeTheirIdsFromTheSequence(PoolMode mode) throws Exception {
        SessionFactory factory = open(mode, "hibernate_batch");
        Set<Long> ids = new HashSet<>();
        factory.inTransaction(session -> {
            for (int i = 0; i < 23; i++) {
                Account a = new Account("owner" + i, i);
                session.persist(a);
                ids.add(a.id());
            }
        });

        assertEquals(23, ids.size(), "each account its own id");
        assertEquals(23, factory.getStatistics().getEntityInsertCount());
        assertTrue(factory.getStatistics().getPrepareStatementCount() < 23,
                "23 inserts in batches of 10 need fewer statements than rows");
        String schema = "hibernate_batch_" + mode.name().toLowerCase(Locale.ROOT);
        try (Connection c = db.connect()) {
            assertEquals("23", Sql.value(c, "SELECT count(*) FROM " + schema + ".Account"));
            assertTrue(Long.parseLong(Sql.value(c, "SELECT last_value FROM " + schema + ".account_ids"))
                    >= ids.stream().mapToLong(Long::longValue).max().orElseThrow(), "the ids came from the sequence");
        }
    }

    @ParameterizedTest
    @EnumSource(value = PoolMode.class, names = {"SESSION", "TRANSACTION"})
    void anUpdateOfAStaleVersionIsRefused(PoolMode mode) {
        SessionFactory factory = open(mode, "hibernate_version");
        Long id = factory.fromTransaction(session -> {
            Account a = new Account("shared", 100);
            session.persist(a);
            return a.id();
        });

        try (Session first = factory.openSession(); Session second = factory.openSession()) {
            first.beginTransaction();
            second.beginTransaction();
            Account mine = first.find(Account.class, id);
            Account theirs = second.find(Account.class, id);
            theirs.balance(50);
            second.getTransaction().commit();

            mine.balance(70);
            RuntimeException refused = assertThrows(RuntimeException.class, () -> first.getTransaction().commit());
            assertTrue(refused instanceof OptimisticLockException || refused instanceof StaleStateException
                    || refused.getCause() instanceof StaleStateException, refused.toString());
        }
        assertEquals(50, factory.fromTransaction(s -> s.find(Account.class, id)).balance(),
                "the first commit's value stays");
    }
}
