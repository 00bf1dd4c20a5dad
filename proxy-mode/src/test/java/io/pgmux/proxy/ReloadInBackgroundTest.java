package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.Sql;
import io.pgmux.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGHUP's reload, which runs off the signal's thread: whoever connects after it was asked for is served by the
 * reloaded settings, as in PgBouncer, whose one loop reloads before it accepts again; the listeners take clients
 * again once it is over, whether it applied the file or failed.
 */
@PostgresTest
class ReloadInBackgroundTest {
    private final TestDatabase db;
    /** The reload reads the file only once this opens: a reload that takes its time. */
    private final CountDownLatch fileReadable = new CountDownLatch(1);
    /** Opened for a second reload in the same way, once the first has read the file. */
    private final CountDownLatch secondReadable = new CountDownLatch(1);
    private final AtomicInteger reads = new AtomicInteger();
    private PgMuxProxy proxy;
    @TempDir
    Path dir;

    ReloadInBackgroundTest(TestDatabase db) {
        this.db = db;
    }

    @AfterEach
    void stop() {
        fileReadable.countDown();
        secondReadable.countDown();
        if (proxy != null) {
            proxy.close();
        }
    }

    private void start() throws Exception {
        ProxyFixture.writeUserlist(dir, ProxyFixture.USER, ProxyFixture.PASSWORD);
        writeIni(db.name());
        proxy = ProxyConfigLoader.load(dir.resolve("pgmux.ini")).reloadFromFile(conffile -> {
            (reads.getAndIncrement() == 0 ? fileReadable : secondReadable).await();
            return ProxyConfigLoader.load(conffile);
        }).start();
    }

    private void writeIni(String... databases) throws Exception {
        StringBuilder entries = new StringBuilder();
        for (String name : databases) {
            entries.append(name).append(" = host=").append(db.host()).append(" port=").append(db.port())
                    .append(" dbname=").append(db.name()).append(" user=").append(db.superuser())
                    .append(" password=").append(db.superuserPassword()).append('\n');
        }
        ProxyFixture.writeIni(dir.resolve("pgmux.ini"), entries.toString(), 0, "pool_mode = transaction\n");
    }

    private CompletableFuture<String> queryInBackground(String database) {
        return CompletableFuture.supplyAsync(() -> {
            try (Connection c = ProxyFixture.connect(proxy, database, ProxyFixture.USER, ProxyFixture.PASSWORD,
                    new Properties())) {
                return Sql.value(c, "SELECT pg_catalog.current_database()");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void aClientThatConnectsDuringTheReloadIsServedByTheReloadedFile() throws Exception {
        start();
        writeIni(db.name(), "added");
        CompletableFuture<Void> reloaded = proxy.reloadInBackground();
        CompletableFuture<String> client = queryInBackground("added");
        assertThrows(TimeoutException.class, () -> client.get(300, TimeUnit.MILLISECONDS),
                "the client waits for the reload, which has not read the file yet");
        fileReadable.countDown();
        reloaded.get(10, TimeUnit.SECONDS);
        assertEquals(db.name(), client.get(10, TimeUnit.SECONDS), "the database the reload added");
    }

    @Test
    void overlappingReloadsHoldNewClientsUntilTheLastIsOver() throws Exception {
        start();
        CompletableFuture<Void> first = proxy.reloadInBackground();
        CompletableFuture<Void> second = proxy.reloadInBackground();
        fileReadable.countDown();
        CompletableFuture.anyOf(first, second).get(10, TimeUnit.SECONDS); // whichever read the file first
        CompletableFuture<String> client = queryInBackground(db.name());
        assertThrows(TimeoutException.class, () -> client.get(300, TimeUnit.MILLISECONDS),
                "the client waits for the other reload");
        secondReadable.countDown();
        CompletableFuture.allOf(first, second).get(10, TimeUnit.SECONDS);
        assertEquals(db.name(), client.get(10, TimeUnit.SECONDS));
    }

    @Test
    void theListenersTakeClientsAgainAfterAFailedReload() throws Exception {
        start();
        Files.writeString(dir.resolve("pgmux.ini"), "[pgbouncer]\nlisten_port = many\n");
        CompletableFuture<Void> reloaded = proxy.reloadInBackground();
        CompletableFuture<String> client = queryInBackground(db.name());
        fileReadable.countDown();
        ExecutionException failed = assertThrows(ExecutionException.class, () -> reloaded.get(10, TimeUnit.SECONDS));
        assertFalse(failed.getCause().getMessage().isEmpty());
        assertEquals(db.name(), client.get(10, TimeUnit.SECONDS), "served by the settings kept");
    }
}
