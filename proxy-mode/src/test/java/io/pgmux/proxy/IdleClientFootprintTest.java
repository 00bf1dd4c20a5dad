package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What an idle client holds: clients that logged in and ran one simple query each, then stay idle, keep no object
 * of a feature they did not use. Counted in the class histogram of live objects of this JVM (after a full
 * collection), as jcmd's GC.class_histogram prints it.
 */
@PostgresTest
class IdleClientFootprintTest {
    private static final int CLIENTS = 50;
    private static final Pattern ROW = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+\\d+\\s+(\\S+)", Pattern.MULTILINE);

    private final TestDatabase db;
    private final List<RawClient> clients = new ArrayList<>();
    private PgMuxProxy proxy;

    IdleClientFootprintTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void idleClients() throws Exception {
        proxy = ProxyFixture.start(db, PoolMode.TRANSACTION);
        for (int i = 0; i < CLIENTS; i++) {
            RawClient client = RawClient.login(proxy, db.name(), ProxyFixture.USER, ProxyFixture.PASSWORD);
            clients.add(client);
            client.query("SELECT 1");
            client.readUntilReady();
        }
    }

    @AfterEach
    void stop() throws Exception {
        for (RawClient client : clients) {
            client.close();
        }
        proxy.close();
    }

    /** Live instances of {@code className}, after a full collection. */
    private static long instances(String className) throws Exception {
        String histogram = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[] {new String[0]}, new String[] {String[].class.getName()});
        Matcher row = ROW.matcher(histogram);
        while (row.find()) {
            if (row.group(2).equals(className)) {
                return Long.parseLong(row.group(1));
            }
        }
        return 0;
    }

    @Test
    void idleClientsShareTheScannerOfQueryTextsForSessionState() throws Exception {
        long scanners = instances("io.pgmux.proxy.client.Pinning$SessionStateText");
        assertTrue(scanners < CLIENTS, scanners + " scanners for " + CLIENTS + " clients");
    }
}
