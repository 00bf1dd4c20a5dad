package io.pgmux.proxy.client;

import io.netty.channel.EventLoop;
import io.pgmux.proxy.protocol.FrontendMessage;
import io.pgmux.proxy.server.ServerConnection;
import io.pgmux.proxy.transport.ConnectionSocket;
import io.pgmux.proxy.transport.ReadPauses;
import java.util.ArrayDeque;

/**
 * What both relays of a client to its server ({@link Link} and {@link ReplicationLink}) do alike: flush what was
 * relayed once a read is done, pause each side's reads while the other cannot take more, and release what was held
 * for a server when the client closes. Static, so that the relay's hot path calls it with no object between.
 */
final class RelayFlow {
    private RelayFlow() {
    }

    /** The server's receive buffer is drained: what was relayed to the client goes out, on the client's loop. */
    static void flushToClient(ConnectionSocket client) {
        EventLoop loop = client.eventLoop();
        if (loop.inEventLoop()) {
            client.flush();
        } else {
            loop.execute(client::flush);
        }
    }

    /** On the client's loop, its writability changed: the server's reads pause while the client cannot take more. */
    static void clientWritabilityChanged(ConnectionSocket client, ServerConnection server) {
        if (!client.isWritable()) {
            client.flush();
        }
        // asked again: the flush may have drained the buffer and run this handler for the writable event inside
        server.socket().pauseReads(ReadPauses.PEER_NOT_WRITABLE, !client.isWritable());
    }

    /**
     * On the client's loop, after the server's writability changed: the client's reads pause while the server cannot
     * take more. The event may be stale by now, so the server's writability is read as it is.
     */
    static void serverWritabilityChanged(ConnectionSocket client, ServerConnection server) {
        boolean now = server.socket().isWritable();
        if (!now) {
            // what was relayed since the last read completed must go out, or the server never drains
            server.flush();
        }
        client.pauseReads(ReadPauses.PEER_NOT_WRITABLE, !now);
    }

    /** The client is closing: what it sent that waited for a server is released. */
    static void releaseAll(ArrayDeque<FrontendMessage> held) {
        FrontendMessage message;
        while ((message = held.poll()) != null) {
            message.release();
        }
    }
}
