package io.pgmux.proxy.transport;

import io.netty.channel.Channel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.SocketAddress;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Every open client socket of the proxy, the admin console's too: the channels accepted, and the sockets served
 * without a channel since their login ({@link EpollSocket}), which leave the group of channels when they
 * join. A shutdown closes them all, and SUSPEND pauses them all.
 */
public final class ClientSockets implements ServedSockets {
    private final ChannelGroup channels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final Set<ConnectionSocket> served = ConcurrentHashMap.newKeySet();
    /**
     * The local addresses of the sockets served, one instance each: every client of a listener has the same one
     * (per interface for a wildcard listener), which 10,000 idle clients need not hold 10,000 times.
     */
    private final ConcurrentMap<SocketAddress, SocketAddress> localAddresses = new ConcurrentHashMap<>();
    /** SUSPEND holds: a socket served from now on joins paused. */
    private volatile boolean suspended;
    /** The proxy closes every client: a socket served from now on closes as it joins. */
    private volatile boolean closingAll;

    /** Each accepted client channel joins, from its initializer. */
    public void accepted(Channel channel) {
        channels.add(channel);
    }

    /** The client channels, for SUSPEND's read gate. */
    ChannelGroup channels() {
        return channels;
    }

    /** The one instance of a local address equal to {@code local}, for a socket served without a channel. */
    @Override
    public SocketAddress shared(SocketAddress local) {
        if (local == null) {
            return null;
        }
        SocketAddress known = localAddresses.get(local);
        if (known == null) {
            known = localAddresses.putIfAbsent(local, local);
        }
        return known == null ? local : known;
    }

    /**
     * {@code channel}'s socket is {@code socket}'s from now on, which calls {@link #closed} at its close; on its loop.
     */
    @Override
    public void handedOver(Channel channel, EpollSocket socket) {
        served.add(socket);
        channels.remove(channel);
        if (suspended) {
            socket.pauseReads(ReadPauses.SUSPENDED, true);
        }
        if (closingAll) {
            socket.close();
        }
    }

    /** A socket of {@link #handedOver} closed. */
    @Override
    public void closed(ConnectionSocket socket) {
        served.remove(socket);
    }

    /** Whether {@link #closeAll} began: no socket leaves its channel any more. */
    @Override
    public boolean closingAll() {
        return closingAll;
    }

    /** SUSPEND, or RESUME when {@code suspended} is false: the sockets served without a channel pause or read. */
    void suspend(boolean suspended) {
        this.suspended = suspended;
        served.forEach(socket -> socket.pauseReads(ReadPauses.SUSPENDED, suspended));
    }

    public boolean isEmpty() {
        return channels.isEmpty() && served.isEmpty();
    }

    /** Closes every client socket; waits up to {@code timeoutMillis} for them to be closed. */
    public void closeAll(long timeoutMillis) throws InterruptedException {
        // before the sockets are listed: one that leaves its channel after the list was made closes itself
        closingAll = true;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        List<ConnectionSocket> open = List.copyOf(served);
        CountDownLatch closing = new CountDownLatch(open.size());
        for (ConnectionSocket socket : open) {
            socket.whenClosed(closing::countDown);
            socket.close();
        }
        channels.close().await(timeoutMillis);
        closing.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    /**
     * Waits until every client socket open now, and any that opens meanwhile, has closed. Polled: a channel whose
     * socket left it for one served without a channel ({@link #handedOver}) closes no more, so no close of a channel
     * seen here can be waited for.
     */
    public void awaitAllClosed() throws InterruptedException {
        while (!isEmpty()) {
            Thread.sleep(20);
        }
    }
}
