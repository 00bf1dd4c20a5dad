package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.Await;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** metrics_listen: the proxy's pools and its JVM scraped over HTTP in Prometheus's text format. */
@PostgresTest
class PrometheusEndpointTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private final TestDatabase db;

    PrometheusEndpointTest(TestDatabase db) {
        this.db = db;
    }

    private static PgMuxProxy startWithMetrics(TestDatabase db, int poolSize) {
        return ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.defaultPoolSize(poolSize)
                .set("metrics_listen", "127.0.0.1:0"));
    }

    static HttpResponse<String> scrape(InetSocketAddress address) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + address.getHostString() + ":"
                + address.getPort() + "/metrics")).timeout(Duration.ofSeconds(30)).build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** The value of the sample {@code name} of the test database's pool in one scrape; NaN when absent. */
    private double sample(PgMuxProxy proxy, String name) throws Exception {
        return valueOf(scrape(proxy.metricsAddress().orElseThrow()).body(), name, db.name());
    }

    static double valueOf(String exposition, String name, String database) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "\\{([^}]*)} (\\S+)$").matcher(exposition);
        while (m.find()) {
            if (m.group(1).contains("database=\"" + database + "\"")) {
                return Double.parseDouble(m.group(2));
            }
        }
        return Double.NaN;
    }

    /** Scrapes until {@code name} satisfies {@code condition}: the figures are cached for up to a second. */
    private double awaitSample(PgMuxProxy proxy, String name, java.util.function.DoublePredicate condition)
            throws Exception {
        double value = Await.value(() -> sample(proxy, name), condition::test, Duration.ofSeconds(30));
        assertTrue(condition.test(value), name + " is " + value);
        return value;
    }

    @Test
    void isOffUnlessMetricsListenIsSet() {
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION)) {
            assertTrue(proxy.metricsAddress().isEmpty());
        }
    }

    @Test
    void servesTheJvmsSeriesInPrometheusTextFormat() throws Exception {
        try (PgMuxProxy proxy = startWithMetrics(db, 2)) {
            HttpResponse<String> response = scrape(proxy.metricsAddress().orElseThrow());
            assertEquals(200, response.statusCode());
            assertTrue(response.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"),
                    response.headers().toString());
            for (String series : new String[] {"jvm_memory_used_bytes{", "jvm_threads_live_threads ",
                    "process_uptime_seconds ", "jvm_classes_loaded_classes "}) {
                assertTrue(response.body().contains("\n" + series), series + " missing from\n" + response.body());
            }
        }
    }

    @Test
    void transactionQueryAndByteTotalsFollowTheTraffic() throws Exception {
        try (PgMuxProxy proxy = startWithMetrics(db, 2);
                Connection c = ProxyFixture.connect(proxy, db);
                Statement st = c.createStatement()) {
            st.execute("SELECT 1");
            double transactions = awaitSample(proxy, "pgmux_transactions_total", v -> v >= 1);
            double queries = awaitSample(proxy, "pgmux_queries_total", v -> v >= 1);
            double received = awaitSample(proxy, "pgmux_bytes_received_bytes_total", v -> v > 0);
            for (int i = 0; i < 7; i++) {
                st.execute("SELECT " + i);
            }
            awaitSample(proxy, "pgmux_transactions_total", v -> v == transactions + 7);
            awaitSample(proxy, "pgmux_queries_total", v -> v == queries + 7);
            awaitSample(proxy, "pgmux_bytes_received_bytes_total", v -> v > received);
            awaitSample(proxy, "pgmux_clients_wait_seconds_count", v -> v >= transactions + 7);
        }
    }

    @Test
    void showPoolsFiguresFollowClientsAndServers() throws Exception {
        try (PgMuxProxy proxy = startWithMetrics(db, 1);
                Connection holder = ProxyFixture.connect(proxy, db);
                Connection waiter = ProxyFixture.connect(proxy, db);
                Statement st = holder.createStatement()) {
            holder.setAutoCommit(false);
            st.execute("SELECT 1");
            awaitSample(proxy, "pgmux_connections_active", v -> v == 1);
            awaitSample(proxy, "pgmux_clients_active", v -> v == 2);
            CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> {
                try (Statement w = waiter.createStatement()) {
                    w.execute("SELECT 2");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            awaitSample(proxy, "pgmux_clients_waiting", v -> v == 1);
            awaitSample(proxy, "pgmux_clients_maxwait_seconds", v -> v > 0);
            holder.commit();
            waiting.get(30, TimeUnit.SECONDS);
            awaitSample(proxy, "pgmux_clients_waiting", v -> v == 0);
            awaitSample(proxy, "pgmux_connections_active", v -> v == 0);
            awaitSample(proxy, "pgmux_connections_idle", v -> v == 1);
        }
    }

    @Test
    void anApplicationsRegistryReceivesThePoolMetersToo() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.metricRegistry(registry)
                .set("metrics_listen", "127.0.0.1:0"));
                Connection c = ProxyFixture.connect(proxy, db);
                Statement st = c.createStatement()) {
            st.execute("SELECT 1");
            awaitSample(proxy, "pgmux_transactions_total", v -> v >= 1);
            assertTrue(registry.get("pgmux.transactions").tag("database", db.name()).functionCounter().count() >= 1);
        }
    }

    @Test
    void aPortInUseFailsTheStartNamingTheSetting() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String address = "127.0.0.1:" + taken.getLocalPort();
            UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> ProxyFixture.start(db,
                    PoolMode.TRANSACTION, b -> b.set("metrics_listen", address)));
            assertEquals("metrics_listen: cannot listen on " + address, e.getMessage());
            assertTrue(e.getCause().getMessage().contains("Address already in use"), e.getCause().toString());
        }
    }
}
