package io.pgmux.proxy.transport;

import io.netty.channel.Channel;
import java.net.SocketAddress;

/**
 * The set a socket served without a channel ({@link EpollSocket}) joins when it leaves its channel and leaves at its
 * close, which a shutdown or SUSPEND reaches it through: the clients' ({@link ClientSockets}) or the servers'
 * ({@link ReadGate}).
 */
public interface ServedSockets {
    /** The one instance of a local address equal to {@code local} (or {@code local} itself), to keep. */
    SocketAddress shared(SocketAddress local);

    /** Whether every socket of the set is being closed: no socket leaves its channel any more. */
    boolean closingAll();

    /**
     * {@code channel}'s socket is {@code socket}'s from now on, which calls {@link #closed} at its close; on its loop.
     */
    void handedOver(Channel channel, EpollSocket socket);

    /** A socket of {@link #handedOver} closed. */
    void closed(ConnectionSocket socket);
}
