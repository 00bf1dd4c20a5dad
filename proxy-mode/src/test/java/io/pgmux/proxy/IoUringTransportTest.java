package io.pgmux.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.uring.IoUring;
import io.pgmux.core.config.PoolMode;
import io.pgmux.proxy.config.TlsMode;
import io.pgmux.proxy.config.TransportKind;
import io.pgmux.proxy.server.LoadBalanceHosts;
import io.pgmux.proxy.server.ServerHost;
import io.pgmux.proxy.server.ServerTarget;
import io.pgmux.proxy.server.TargetSessionAttrs;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** transport = io_uring: the proxy's loops, its clients and its server connections run on Netty's io_uring. */
@PostgresTest
class IoUringTransportTest {
    private final TestDatabase db;
    @TempDir
    Path dir;

    IoUringTransportTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeEach
    void ioUringRunsHere() {
        Assumptions.assumeTrue(IoUring.isAvailable(), () -> "io_uring unavailable: " + IoUring.unavailabilityCause());
    }

    @Test
    void clientsTakingTurnsOverOneServerEachSeeTheirOwnTransactions() throws SQLException {
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION,
                b -> b.set("transport", "io_uring").set("default_pool_size", "1"));
                Connection a = ProxyFixture.connect(proxy, db); Connection b = ProxyFixture.connect(proxy, db);
                Statement sa = a.createStatement(); Statement sb = b.createStatement()) {
            assertEquals(TransportKind.IO_URING, proxy.transport());
            for (int i = 0; i < 20; i++) {
                assertEquals(i, selectOne(sa, "SELECT " + i));
                assertEquals(-i, selectOne(sb, "SELECT " + -i));
            }
            a.setAutoCommit(false);
            sa.execute("CREATE TEMP TABLE t (x int) ON COMMIT DROP");
            sa.execute("INSERT INTO t SELECT generate_series(1, 1000)");
            assertEquals(500500, selectOne(sa, "SELECT sum(x)::int FROM t"));
            a.commit();
        }
    }

    @Test
    void theOsUserReachesTheAdminConsoleOnTheUnixSocketByItsPeerCredentials() throws Exception {
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION,
                b -> b.set("transport", "io_uring").unixSocketDir(dir))) {
            Psql.Result result = Psql.run("host=" + dir + " port=" + proxy.port() + " user=pgbouncer dbname=pgbouncer",
                    "SHOW VERSION");
            assertTrue(result.succeeded(), result.output());
            assertTrue(result.output().contains("PgBouncer"), result.output());
        }
    }

    @Test
    void aServerInTheAbstractNamespaceIsReachedOverIoUring() throws SQLException {
        ServerTarget abstractSocket = new ServerTarget(List.of(new ServerHost(db.server().abstractSocketName(),
                db.port())), db.name(), db.superuser(), db.superuserPassword(), TlsMode.DISABLE,
                LoadBalanceHosts.ROUND_ROBIN, TargetSessionAttrs.ANY);
        try (PgMuxProxy proxy = ProxyFixture.start(db, PoolMode.TRANSACTION,
                b -> b.set("transport", "io_uring").database("local", abstractSocket));
                Connection c = ProxyFixture.connect(proxy, "local", ProxyFixture.USER, ProxyFixture.PASSWORD,
                        new Properties());
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT inet_client_addr() IS NULL")) {
            assertTrue(rs.next());
            assertTrue(rs.getBoolean(1), "the server saw a Unix-socket connection");
        }
    }

    private static int selectOne(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            assertTrue(rs.next());
            return rs.getInt(1);
        }
    }
}
