package io.pgmux.jdbc.frameworks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgmux.core.config.PoolMode;
import io.pgmux.jdbc.PgMuxDataSource;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.Sql;
import io.pgmux.testing.TestDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.database.postgresql.PostgreSQLConfigurationExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Flyway migrating through {@code jdbc:pgmux} in session and transaction mode: a step Flyway must run
 * outside a transaction ({@code CREATE INDEX CONCURRENTLY}), under the session advisory lock Flyway takes
 * so that two migrations never run at once.
 */
@PostgresTest
class FlywayThroughPgmuxTest {
    private final TestDatabase db;
    @TempDir
    Path migrations;

    FlywayThroughPgmuxTest(TestDatabase db) {
        this.db = db;
    }

    private final List<PgMuxDataSource> opened = new ArrayList<>();

    @AfterEach
    void closePools() {
        opened.forEach(PgMuxDataSource::close);
    }

    private Flyway flyway(PoolMode mode, String schema) throws IOException {
        Files.writeString(migrations.resolve("V1__accounts.sql"),
                "CREATE TABLE accounts (id bigint PRIMARY KEY, owner text NOT NULL);");
        Files.writeString(migrations.resolve("V2__owner_index.sql"),
                "CREATE INDEX CONCURRENTLY accounts_owner ON accounts (owner);");
        Files.writeString(migrations.resolve("V3__seed.sql"), "INSERT INTO accounts VALUES (1, 'a'), (2, 'b');");
        // a DataSource, since Flyway picks its database support by the URL's prefix and knows no jdbc:pgmux:
        PgMuxDataSource ds = new PgMuxDataSource();
        ds.setJdbcUrl(PgmuxUrls.url(db, mode, schema, 4));
        ds.setUsername(db.superuser());
        ds.setPassword(db.superuserPassword());
        opened.add(ds);
        FluentConfiguration config = Flyway.configure()
                .dataSource(ds)
                .schemas(schema)
                .locations("filesystem:" + migrations);
        // a session lock, since the transaction of a transactional one would keep CONCURRENTLY waiting
        config.getConfigurationExtension(PostgreSQLConfigurationExtension.class).setTransactionalLock(false);
        return config.load();
    }

    private static String schema(PoolMode mode, String scenario) {
        return scenario + "_" + mode.name().toLowerCase(Locale.ROOT);
    }

    @ParameterizedTest
    @EnumSource(value = PoolMode.class, names = {"SESSION", "TRANSACTION"})
    void migratesWithAStepOutsideATransactionAndLeavesNoLockBehind(PoolMode mode) throws Exception {
        String schema = schema(mode, "flyway");
        Flyway flyway = flyway(mode, schema);

        assertEquals(3, flyway.migrate().migrationsExecuted);

        try (Connection c = db.connect()) {
            assertEquals("2", Sql.value(c, "SELECT count(*) FROM " + schema + ".accounts"));
            assertEquals("t", Sql.value(c, "SELECT indisvalid FROM pg_index WHERE indexrelid = '" + schema
                    + ".accounts_owner'::regclass"), "the concurrent build finished");
            assertEquals("3", Sql.value(c, "SELECT count(*) FROM " + schema + ".flyway_schema_history"
                    + " WHERE type = 'SQL' AND success"));
            assertEquals("0", Sql.value(c, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"),
                    "Flyway's lock went with its migration, though the pool keeps its server connections");
        }
        assertEquals(0, flyway.migrate().migrationsExecuted, "a second run finds every step applied");
    }

    @ParameterizedTest
    @EnumSource(value = PoolMode.class, names = {"SESSION", "TRANSACTION"})
    void twoMigrationsAtOnceApplyEachStepOnce(PoolMode mode) throws Exception {
        String schema = schema(mode, "flyway_race");
        List<Flyway> both = List.of(flyway(mode, schema), flyway(mode, schema));
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            List<Future<Integer>> runs = new ArrayList<>();
            for (Flyway f : both) {
                runs.add(threads.submit(() -> f.migrate().migrationsExecuted));
            }
            int executed = 0;
            for (Future<Integer> run : runs) {
                executed += run.get();
            }
            assertEquals(3, executed, "the advisory lock let one of them apply the steps, the other none again");
        } finally {
            threads.shutdownNow();
        }
        try (Connection c = db.connect()) {
            assertEquals("3", Sql.value(c, "SELECT count(*) FROM " + schema + ".flyway_schema_history"
                    + " WHERE type = 'SQL' AND success"));
            assertEquals("2", Sql.value(c, "SELECT count(*) FROM " + schema + ".accounts"));
        }
    }
}
