package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.Sql;
import io.pgmux.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A client that sends more than the proxy holds for it while it waits for a server (64 KB) stops being read at
 * that limit, and is read again, to the end of what it sent, once a server is linked to it.
 */
@PostgresTest
class HoldLimitWhileWaitingTest {
    /** Well past the 64 KB held for a waiting client, in one query. */
    private static final int TEXT_LENGTH = 300_000;

    private final TestDatabase db;
    private PgMuxProxy proxy;

    HoldLimitWhileWaitingTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void start() {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.defaultPoolSize(1));
    }

    @AfterEach
    void stop() {
        proxy.close();
    }

    @Test
    void aQueryLongerThanTheHoldLimitSentWhileWaitingRunsWholeOnceAServerFrees() throws Exception {
        try (Connection waiting = ProxyFixture.connect(proxy, db);
                Connection holder = ProxyFixture.connect(proxy, db)) {
            holder.setAutoCommit(false);
            Sql.value(holder, "SELECT 1");
            String query = "SELECT length('" + "x".repeat(TEXT_LENGTH) + "')";
            CompletableFuture<String> run = CompletableFuture.supplyAsync(() -> {
                try {
                    return Sql.value(waiting, query);
                } catch (SQLException e) {
                    throw new CompletionException(e);
                }
            });
            ProxyFixture.awaitWaiting(proxy, db.name(), db.superuser(), 1);
            holder.commit();

            assertEquals(String.valueOf(TEXT_LENGTH), run.get(30, TimeUnit.SECONDS));
            assertEquals("2", Sql.value(waiting, "SELECT 1 + 1"), "the client goes on after it");
        }
    }
}
