package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.testing.Await;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.TabularData;
import org.junit.jupiter.api.Test;

/** The proxy's pools as JMX shows them: the JDBC driver's MXBean, read through the platform MBeanServer. */
@PostgresTest
class ProxyMxBeanTest {
    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

    private final TestDatabase db;

    ProxyMxBeanTest(TestDatabase db) {
        this.db = db;
    }

    private ObjectName name() throws Exception {
        return new ObjectName("io.pgmux:type=Pool,name=" + ObjectName.quote(db.name() + "/" + db.superuser()));
    }

    private static Object awaitAttribute(ObjectName name, String attribute, Object expected) {
        return Await.value(() -> SERVER.getAttribute(name, attribute), expected::equals, Duration.ofSeconds(10));
    }

    @Test
    void eachPoolRegistersItsMxBeanAtItsFirstClientAndUnregistersItAtClose() throws Exception {
        ObjectName name = name();
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.registerMbeans(true))) {
            assertFalse(SERVER.isRegistered(name), "no pool before a client");
            try (Connection c = ProxyFixture.connect(proxy, db); Statement st = c.createStatement()) {
                assertTrue(SERVER.isRegistered(name));
                long before = (Long) SERVER.getAttribute(name, "TransactionCount");
                c.setAutoCommit(false);
                st.execute("SELECT 1");
                assertEquals(1, awaitAttribute(name, "ActiveConnections", 1), "sv_active inside a transaction");
                assertEquals(1, SERVER.getAttribute(name, "ClientsActive"));
                assertEquals("transaction", SERVER.getAttribute(name, "PoolMode"));
                c.commit();
                assertEquals(0, awaitAttribute(name, "ActiveConnections", 0), "sv_active after the commit");
                for (int i = 0; i < 4; i++) {
                    st.execute("SELECT " + i);
                    c.commit();
                }
                assertEquals(before + 5, awaitAttribute(name, "TransactionCount", before + 5));
            }
        }
        assertFalse(SERVER.isRegistered(name), "unregistered when the proxy closed");
    }

    @Test
    void pinnedClientsAndTheirReasonsAreShown() throws Exception {
        ObjectName name = name();
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION, b -> b.registerMbeans(true));
                Connection c = ProxyFixture.connect(proxy, db); Statement st = c.createStatement()) {
            st.execute("SELECT pg_advisory_lock(6060)");
            assertEquals(1, awaitAttribute(name, "ClientsPinned", 1));
            TabularData reasons = (TabularData) SERVER.getAttribute(name, "PinsByReason");
            assertEquals(1L, reasons.get(new Object[] {"ADVISORY_LOCK"}).get("value"));
            st.execute("SELECT pg_advisory_unlock_all()");
            assertEquals(0, awaitAttribute(name, "ClientsPinned", 0), "transaction-pooled again");
        }
    }

    @Test
    void noMxBeanUnlessAsked() throws Exception {
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION);
                Connection c = ProxyFixture.connect(proxy, db); Statement st = c.createStatement()) {
            st.execute("SELECT 1");
            assertFalse(SERVER.isRegistered(name()));
        }
    }
}
