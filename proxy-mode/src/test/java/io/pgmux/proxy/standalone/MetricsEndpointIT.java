package io.pgmux.proxy.standalone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.testing.Await;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The runnable jar with {@code metrics_listen}: a Prometheus scrape of the process while clients use it. */
@PostgresTest
class MetricsEndpointIT {
    private static final Pattern SERVING = Pattern.compile("LOG metrics_listen: serving (http://\\S+/metrics)$");

    private final TestDatabase db;
    @TempDir
    Path dir;

    MetricsEndpointIT(TestDatabase db) {
        this.db = db;
    }

    private Path ini(String metricsListen) throws Exception {
        Files.writeString(dir.resolve("userlist.txt"), "\"app\" \"app-secret\"\n");
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, "[databases]\n"
                + "app = host=" + db.host() + " port=" + db.port() + " dbname=" + db.name()
                + " user=" + db.superuser() + " password=" + db.superuserPassword() + "\n"
                + "[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = 0\npool_mode = transaction\n"
                + "auth_type = scram-sha-256\nauth_file = userlist.txt\nmetrics_listen = " + metricsListen + "\n");
        return ini;
    }

    private static String scrape(HttpClient http, String url) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode());
        return response.body();
    }

    private static double transactions(String exposition) {
        Matcher m = Pattern.compile("(?m)^pgmux_transactions_total\\{[^}]*database=\"app\"[^}]*} (\\S+)$")
                .matcher(exposition);
        return m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
    }

    @Test
    void servesThePoolsAndTheJvmToAPrometheusScrape() throws Exception {
        try (ProxyJar proxy = ProxyJar.start(ini("127.0.0.1:0").toString())) {
            int port = proxy.awaitPort();
            String url = proxy.awaitStderr(SERVING).group(1);
            HttpClient http = HttpClient.newHttpClient();
            assertTrue(scrape(http, url).contains("\njvm_memory_used_bytes{"), "the JVM's series");
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/app", "app",
                    "app-secret"); Statement st = c.createStatement()) {
                for (int i = 0; i < 5; i++) {
                    st.execute("SELECT " + i);
                }
                String body = Await.value(() -> scrape(http, url), b -> transactions(b) >= 5, Duration.ofSeconds(30));
                assertTrue(transactions(body) >= 5, "pgmux_transactions_total after 5 transactions:\n" + body);
                assertTrue(body.contains("pgmux_clients_active{"), body);
            }
        }
    }

    @Test
    void aMetricsPortInUseStopsTheStartWithTheSettingNamed() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String address = "127.0.0.1:" + taken.getLocalPort();
            ProxyJar proxy = ProxyJar.run(ini(address).toString());
            assertEquals(1, proxy.awaitExit());
            assertTrue(proxy.stderr().stream().anyMatch(line -> line.endsWith("FATAL metrics_listen: cannot listen on "
                    + address + ": Address already in use")), String.join("\n", proxy.stderr()));
        }
    }
}
