package io.pgmux.proxy.client;

import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.local.LocalChannel;
import io.pgmux.core.pool.PoolRegistry;
import io.pgmux.proxy.prepared.PreparedStatementLimit;
import io.pgmux.proxy.protocol.FrontendMessageDecoder;
import io.pgmux.proxy.protocol.PoolerError;
import io.pgmux.proxy.server.ServerConnection;
import org.junit.jupiter.api.Test;

/** A connection's state belongs to its event loop: the tests run with assertions that say so. */
class EventLoopConfinementTest {

    @Test
    void aClientsStateChangedOffItsEventLoopFailsAnAssertion() throws Exception {
        DefaultEventLoopGroup loops = new DefaultEventLoopGroup(1);
        // a client's login wakes the registry's janitor; no pool is ever made here
        try (PoolRegistry<ServerConnection> registry = PoolRegistry.<ServerConnection>builder()
                .connectors(key -> {
                    throw new AssertionError("no pool is made");
                }).build()) {
            ProxyContext context = new ProxyContext(registry, null, null, new PreparedStatementLimit(0), () -> 1,
                    Runnable::run);
            FrontendMessageDecoder codec = new FrontendMessageDecoder();
            ClientConnection client = new ClientConnection(context, codec);
            codec.serve(client);
            LocalChannel channel = new LocalChannel();
            channel.pipeline().addLast(codec);
            loops.register(channel).sync();
            channel.eventLoop().submit(() -> client.channelActive(channel.pipeline().context(codec))).get();

            assertThrows(AssertionError.class, () -> client.fatal(PoolerError.clientIdleTimeout()));
            // the same change on the client's own loop is what the proxy does
            channel.eventLoop().submit(() -> client.fatal(PoolerError.clientIdleTimeout())).get();
        } finally {
            loops.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).sync();
        }
    }
}
