package io.pgmux.proxy.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolConfig;
import io.pgmux.core.fleet.FleetQueryException;
import io.pgmux.core.fleet.FleetSession;
import io.pgmux.core.fleet.PostgresFleetCoordinator;
import io.pgmux.core.pool.Lease;
import io.pgmux.core.pool.Pool;
import io.pgmux.core.pool.PoolFleetMember;
import io.pgmux.core.pool.PoolKey;
import io.pgmux.core.pool.PoolRegistry;
import io.pgmux.proxy.auth.PlaintextSecret;
import io.pgmux.proxy.config.TlsMode;
import io.pgmux.proxy.transport.Transport;
import io.pgmux.testing.PostgresTest;
import io.pgmux.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The fleet's coordination over the proxy's own server connections, against the real server: the same
 * coordinator the JDBC driver runs over pgjdbc, with no pgjdbc in the proxy.
 */
@PostgresTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ServerFleetSessionTest {
    private final TestDatabase db;
    private Transport transport;

    ServerFleetSessionTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeAll
    void start() {
        transport = Transport.create(1);
    }

    @AfterAll
    void stop() {
        transport.group().shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private NettyServerConnector connector() {
        ServerTarget target = new ServerTarget(db.host(), db.port(), db.name(), null, null, TlsMode.DISABLE);
        return new NettyServerConnector(transport, target, db.superuser(), new PlaintextSecret(db.superuserPassword()),
                ServerTls.of(transport.blockingWork(), EnumSet.of(TlsMode.DISABLE), null, null, null, null, null),
                5_000, 10);
    }

    @Test
    void aProxyPoolJoinsItsFleetAndHoldsToItsBudget() throws Exception {
        String fleet = "proxy_" + System.nanoTime();
        NettyServerConnector connector = connector();
        try (PoolRegistry<ServerConnection> registry = PoolRegistry.<ServerConnection>builder().connector(connector)
                .config(PoolConfig.jdbcDefaults().defaultPoolSize(10).build()).build()) {
            Pool<ServerConnection> pool = registry.pool(db.name(), db.superuser());
            try (PostgresFleetCoordinator coordinator = new PostgresFleetCoordinator(fleet, 3, db.name(),
                    db.superuser(), ServerFleetSession.through(connector, pool.key()))) {
                coordinator.join(new PoolFleetMember(pool));
                List<CompletableFuture<Lease<ServerConnection>>> borrows = new ArrayList<>();
                for (int i = 0; i < 5; i++) {
                    borrows.add(pool.acquireAsync().toCompletableFuture());
                }
                Thread.sleep(4 * PostgresFleetCoordinator.HEARTBEAT.toMillis());
                assertEquals(3, borrows.stream().filter(CompletableFuture::isDone).count(), "served within the budget");
                assertFalse(pool.fleetStatus().fallback(), "coordinated through the server");
                assertEquals(1, members(fleet), "the member's row");
                for (CompletableFuture<Lease<ServerConnection>> b : borrows) {
                    b.get(5, TimeUnit.SECONDS).release();
                }
            }
        }
    }

    @Test
    void aStatementTheServerRefusesFailsWithTheServersMessage() throws Exception {
        NettyServerConnector connector = connector();
        try (FleetSession session = ServerFleetSession.through(connector, new PoolKey(db.name(), db.superuser()))
                .open("pgmux fleet", Duration.ofSeconds(2))) {
            assertEquals("7", session.query("SELECT $1::int + 4", "3").get(0)[0]);
            FleetQueryException e = assertThrows(FleetQueryException.class,
                    () -> session.query("SELECT * FROM no_such_table"));
            assertTrue(e.getMessage().contains("no_such_table") && e.getMessage().contains("42P01"), e.getMessage());
        }
    }

    private int members(String fleet) throws Exception {
        try (Connection c = db.connect();
             PreparedStatement st = c.prepareStatement("SELECT count(*) FROM pgmux_fleet.members WHERE fleet = ?")) {
            st.setString(1, fleet);
            try (ResultSet rs = st.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }
}
