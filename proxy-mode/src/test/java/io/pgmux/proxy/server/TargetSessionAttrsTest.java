package io.pgmux.proxy.server;

import io.pgmux.proxy.auth.PlaintextSecret;
import io.pgmux.proxy.config.TlsMode;
import io.pgmux.proxy.transport.Transport;
import io.pgmux.testing.Await;
import io.pgmux.testing.StandbyPair;
import java.net.InetSocketAddress;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A host list of a primary and its standby: target_session_attrs picks the server of the wanted kind whatever
 * the order, load_balance_hosts picks where each login starts, and a socket directory is a host too.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TargetSessionAttrsTest {
    private static final String USER = "postgres";

    private StandbyPair pair;
    private Transport transport;
    private ServerHost primary;
    private ServerHost standby;

    @BeforeAll
    void start() {
        pair = StandbyPair.start();
        transport = Transport.create(1);
        primary = new ServerHost(pair.host(), pair.primaryPort());
        standby = new ServerHost(pair.host(), pair.standbyPort());
    }

    @AfterAll
    void stop() {
        if (transport != null) {
            transport.group().shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
        if (pair != null) {
            pair.close();
        }
    }

    private NettyServerConnector connector(List<ServerHost> hosts, LoadBalanceHosts balance,
            TargetSessionAttrs attrs) {
        ServerTarget target = new ServerTarget(hosts, "postgres", null, null, TlsMode.DISABLE, balance, attrs);
        return new NettyServerConnector(transport, target, USER, new PlaintextSecret("any"),
                ServerTls.of(transport.blockingWork(), EnumSet.of(TlsMode.DISABLE), null, null, null, null, null),
                5_000, 10);
    }

    private static ServerConnection await(CompletionStage<ServerConnection> stage) throws Exception {
        return stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    /** The port of the server a login of this connector reaches. */
    private static int loginPort(NettyServerConnector connector) throws Exception {
        ServerConnection server = await(connector.open(new RecordingHandle()));
        try {
            return ((InetSocketAddress) server.remoteAddress()).getPort();
        } finally {
            connector.close(server);
        }
    }

    @Test
    void readWriteAndPrimaryFindThePrimaryWhereverItIsListed() throws Exception {
        for (TargetSessionAttrs attrs : List.of(TargetSessionAttrs.READ_WRITE, TargetSessionAttrs.PRIMARY)) {
            for (List<ServerHost> hosts : List.of(List.of(primary, standby), List.of(standby, primary))) {
                assertEquals(pair.primaryPort(), loginPort(connector(hosts, LoadBalanceHosts.DISABLE, attrs)),
                        attrs + " with " + hosts);
            }
        }
    }

    @Test
    void readOnlyStandbyAndPreferStandbyFindTheStandby() throws Exception {
        for (TargetSessionAttrs attrs : List.of(TargetSessionAttrs.READ_ONLY, TargetSessionAttrs.STANDBY,
                TargetSessionAttrs.PREFER_STANDBY)) {
            assertEquals(pair.standbyPort(), loginPort(connector(List.of(primary, standby),
                    LoadBalanceHosts.DISABLE, attrs)), attrs.toString());
        }
    }

    @Test
    void preferStandbyTakesThePrimaryWhenNoStandbyIsListed() throws Exception {
        assertEquals(pair.primaryPort(), loginPort(connector(List.of(primary), LoadBalanceHosts.DISABLE,
                TargetSessionAttrs.PREFER_STANDBY)));
    }

    @Test
    void theServersOfTheWrongKindALoginPassedOverAreClosed() throws Exception {
        String before = standbyBackends();
        NettyServerConnector connector = connector(List.of(standby, primary), LoadBalanceHosts.DISABLE,
                TargetSessionAttrs.READ_WRITE);
        List<ServerConnection> servers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            servers.add(await(connector.open(new RecordingHandle())));
        }
        try {
            assertEquals(before, awaitStandbyBackends(before));
        } finally {
            servers.forEach(connector::close);
        }
    }

    @Test
    void roundRobinStartsEachLoginAtTheNextHostAndDisableAtTheSameOne() throws Exception {
        NettyServerConnector roundRobin = connector(List.of(primary, standby), LoadBalanceHosts.ROUND_ROBIN,
                TargetSessionAttrs.ANY);
        assertEquals(List.of(pair.primaryPort(), pair.standbyPort(), pair.primaryPort()),
                List.of(loginPort(roundRobin), loginPort(roundRobin), loginPort(roundRobin)));
        NettyServerConnector disable = connector(List.of(primary, standby), LoadBalanceHosts.DISABLE,
                TargetSessionAttrs.ANY);
        assertEquals(List.of(pair.primaryPort(), pair.primaryPort(), pair.primaryPort()),
                List.of(loginPort(disable), loginPort(disable), loginPort(disable)));
    }

    @Test
    void aHostStartingWithASlashIsTheDirectoryOfTheServersUnixSocket() throws Exception {
        NettyServerConnector connector = connector(
                List.of(new ServerHost(pair.socketDirectory().toString(), pair.primaryPort())),
                LoadBalanceHosts.DISABLE, TargetSessionAttrs.ANY);
        ServerConnection server = await(connector.open(new RecordingHandle()));
        try {
            String socket = pair.socketDirectory().resolve(".s.PGSQL." + pair.primaryPort()).toString();
            assertTrue(server.remoteAddress().toString().contains(socket), server.remoteAddress().toString());
            assertNull(server.query("SELECT 1").toCompletableFuture().get(10, TimeUnit.SECONDS));
        } finally {
            connector.close(server);
        }
    }

    /** The pids of client backends on the standby, as one sorted text. */
    private String standbyBackends() throws SQLException {
        try (Connection c = pair.connect(pair.standbyPort(), "postgres"); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT coalesce(string_agg(pid::text, ',' ORDER BY pid), '') "
                     + "FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private String awaitStandbyBackends(String expected) {
        return Await.value(this::standbyBackends, expected::equals, Duration.ofSeconds(5));
    }
}
