package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * metrics_listen under connections that send their request head one byte a second (issue 29, item 15): they
 * hold no worker a scrape needs, and each is closed once the header timeout passes.
 */
@PostgresTest
class MetricsSlowClientsTest {
    private static final int SLOW_CLIENTS = 10;
    private static final byte[] SLOW_HEAD = ("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: "
            + "a".repeat(200) + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);

    private final TestDatabase db;

    MetricsSlowClientsTest(TestDatabase db) {
        this.db = db;
    }

    /** Connections that each send the next byte of {@link #SLOW_HEAD} every second until closed. */
    private static final class SlowClients implements AutoCloseable {
        private final List<Socket> sockets = new ArrayList<>();
        private final ScheduledExecutorService drip = Executors.newSingleThreadScheduledExecutor();
        private int sent;

        SlowClients(InetSocketAddress address, int count) throws IOException {
            for (int i = 0; i < count; i++) {
                sockets.add(new Socket(address.getAddress(), address.getPort()));
            }
            drip.scheduleAtFixedRate(this::sendOneByteEach, 0, 1, TimeUnit.SECONDS);
        }

        private void sendOneByteEach() {
            for (Socket s : sockets) {
                try {
                    s.getOutputStream().write(SLOW_HEAD[sent % SLOW_HEAD.length]);
                    s.getOutputStream().flush();
                } catch (IOException e) {
                    // closed by the endpoint: what the header timeout is for
                }
            }
            sent++;
        }

        @Override
        public void close() throws IOException {
            drip.shutdownNow();
            for (Socket s : sockets) {
                s.close();
            }
        }
    }

    @Test
    void aScrapeIsServedWhileTenConnectionsSendTheirHeadOneByteASecond() throws Exception {
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.set("metrics_listen", "127.0.0.1:0"));
                SlowClients slow = new SlowClients(proxy.metricsAddress().orElseThrow(), SLOW_CLIENTS)) {
            // Every slow connection has sent its first bytes and is being read by now.
            Thread.sleep(2_000);
            InetSocketAddress address = proxy.metricsAddress().orElseThrow();
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + address.getPort()
                    + "/metrics")).timeout(Duration.ofSeconds(5)).build();
            HttpResponse<String> response = HttpClient.newHttpClient().send(request,
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode());
            assertTrue(response.body().contains("\njvm_threads_live_threads "), response.body());
        }
    }

    @Test
    void aConnectionThatSendsItsHeadOneByteASecondIsAnsweredRequestTimeoutAndClosed() throws Exception {
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.set("metrics_listen", "127.0.0.1:0"));
                SlowClients slow = new SlowClients(proxy.metricsAddress().orElseThrow(), 1)) {
            Socket socket = slow.sockets.get(0);
            socket.setSoTimeout(30_000);
            String answer;
            try {
                answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            } catch (SocketTimeoutException e) {
                throw new AssertionError("the slow connection was still open after 30 s", e);
            }
            assertTrue(answer.startsWith("HTTP/1.1 408 Request Timeout\r\n"), answer);
        }
    }

    @Test
    void aHeadOfEightKilobytesWithoutItsEndIsRefused() throws Exception {
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.set("metrics_listen", "127.0.0.1:0"));
                Socket socket = new Socket("127.0.0.1", proxy.metricsAddress().orElseThrow().getPort())) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            String start = "GET /metrics HTTP/1.1\r\nX-Padding: ";
            out.write((start + "a".repeat(8192 - start.length())).getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            assertTrue(answer.startsWith("HTTP/1.1 431 Request Header Fields Too Large\r\n"), answer);
        }
    }
}
