package io.pgmux.proxy.server;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.pgmux.proxy.server.PeerEntry;
import io.pgmux.proxy.protocol.BackendKeyData;
import io.pgmux.proxy.protocol.CancelRequest;
import io.pgmux.proxy.transport.Transport;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PgBouncer's peering (1.19+): this process's peer_id, which its cancel keys carry ({@link PeerCancelKey}), the
 * {@code [peers]} entries, and a pool per peer through which the cancel requests whose key another peer gave are
 * forwarded to that peer's host and port, each over a connection of its own. A peer's pool_size bounds how many are
 * in flight to it at once; the others wait, as long as cancel_wait_timeout. A pool is made at the first cancel
 * forwarded to its peer and dropped with the peer's entry, as PgBouncer's are, so SHOW PEER_POOLS lists the same.
 */
public final class PeerPools {
    private static final Logger log = LoggerFactory.getLogger(PeerPools.class);
    private final Transport transport;
    private final CancelSender sender;
    private volatile Peering peering = new Peering(0, Map.of(), 0);
    private final Map<Integer, PeerPool> pools = new ConcurrentSkipListMap<>();

    /** One row of SHOW PEER_POOLS, in PgBouncer's columns. */
    public record Row(int peerId, int activeRequests, int waitingRequests, int activeCancels, int logins) {
    }

    private record Peering(int ownId, Map<Integer, PeerEntry> peers, int defaultPoolSize) {
    }

    /**
     * A forwarded cancel request: the key to send, its own connection, and who is told the reason that closes with.
     */
    private record Request(BackendKeyData key, PeerEntry peer, Channel channel, Consumer<String> closed) {
        EventLoop loop() {
            return channel.eventLoop();
        }
    }

    public PeerPools(Transport transport, CancelSender sender) {
        this.transport = transport;
        this.sender = sender;
    }

    /**
     * peer_id and the [peers] entries from now on, as start, RELOAD and SET set them; the pool of a peer whose entry
     * is gone is dropped, its waiting requests closed with PgBouncer's "peer removed".
     */
    public void configure(int ownId, Map<Integer, PeerEntry> peers, int defaultPoolSize) {
        Peering before = peering;
        peering = new Peering(ownId, Collections.unmodifiableMap(new TreeMap<>(peers)), defaultPoolSize);
        for (Integer id : before.peers.keySet()) {
            if (!peers.containsKey(id)) {
                log.warn("dropping peer {} as it does not exist anymore", id);
                PeerPool pool = pools.remove(id);
                if (pool != null) {
                    pool.drop();
                }
            }
        }
    }

    /** This process's peer_id; 0 when it takes no part in peering. */
    public int ownId() {
        return peering.ownId;
    }

    /** The [peers] entries, by id. */
    public Collection<PeerEntry> peers() {
        return peering.peers.values();
    }

    /** default_pool_size, the pool_size of the entries without their own. */
    public int defaultPoolSize() {
        return peering.defaultPoolSize;
    }

    /** SHOW PEER_POOLS: one row per peer a cancel has been forwarded to, by id. */
    public List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        pools.forEach((id, pool) -> rows.add(pool.row(id)));
        return rows;
    }

    /**
     * A cancel request received here: without peering, {@code received} as it came; under peering (peer_id set), one
     * whose key another peer gave is forwarded to that peer ({@link #forward}) and null returned, and one of ours
     * comes back as its key was given, its TTL bits full again, to be looked up here.
     */
    public CancelRequest ownOrForward(CancelRequest received, Channel channel, Consumer<String> closed) {
        int ownId = peering.ownId;
        if (ownId == 0) {
            return received;
        }
        BackendKeyData key = received.key();
        if (PeerCancelKey.peerId(key) != ownId) {
            forward(key, channel, closed);
            return null;
        }
        BackendKeyData given = PeerCancelKey.asGiven(key);
        return new CancelRequest(given.processId(), given.secretKey());
    }

    /**
     * Forwards a cancel request whose key another peer gave, with its TTL lowered, as PgBouncer does. {@code closed}
     * is told once, on {@code channel}'s event loop, the reason the request's own connection, {@code channel}, then
     * closes with, in PgBouncer's words. A request still waiting when its client closes that connection is dropped.
     */
    public void forward(BackendKeyData key, Channel channel, Consumer<String> closed) {
        int peerId = PeerCancelKey.peerId(key);
        if (PeerCancelKey.ttl(key) == 0) {
            closed.accept("failed to forward cancel request because its TTL was exhausted");
            return;
        }
        Peering now = peering;
        PeerEntry peer = now.peers.get(peerId);
        if (peer == null) {
            closed.accept("could not find peer to forward request to");
            return;
        }
        log.debug("forwarding cancellation request to peer {}", peerId);
        pools.computeIfAbsent(peerId, id -> new PeerPool()).submit(
                new Request(PeerCancelKey.forwarded(key), peer, channel, closed), peer.poolSize(now.defaultPoolSize));
    }

    /** One peer's requests: those in flight (at most pool_size), and those waiting their turn. */
    private final class PeerPool {
        private final ArrayDeque<Request> waiting = new ArrayDeque<>();
        private int poolSize;
        /** Requests with a connection to the peer, open or opening. */
        private int inFlight;
        /** Of those, the connections still opening. */
        private int opening;

        void submit(Request request, int size) {
            synchronized (this) {
                poolSize = size;
                if (inFlight >= poolSize) {
                    waiting.add(request);
                    long waitMillis = sender.waitTimeoutMillis();
                    if (waitMillis > 0) {
                        request.loop().schedule(() -> giveUp(request, "cancel_wait_timeout"), waitMillis,
                                TimeUnit.MILLISECONDS);
                    }
                    request.channel.closeFuture().addListener(closed -> giveUp(request, null));
                    return;
                }
                inFlight++;
                opening++;
            }
            send(request);
        }

        /** Takes {@code request} out of the waiting ones, if it still waits, closing it with {@code reason}. */
        private void giveUp(Request request, String reason) {
            boolean removed;
            synchronized (this) {
                removed = waiting.remove(request);
            }
            if (removed && reason != null) {
                request.closed.accept(reason);
            }
        }

        private void send(Request request) {
            boolean[] connected = {false};
            HostResolver.resolve(transport, request.peer.host())
                    .thenCompose(address -> sender.deliver(address, request.key, () -> {
                        synchronized (this) {
                            connected[0] = true;
                            opening--;
                        }
                    }, null, null))
                    .whenComplete((sent, failure) -> finished(request, failure == null && sent, connected));
        }

        private void finished(Request request, boolean sent, boolean[] connected) {
            Request next;
            synchronized (this) {
                inFlight--;
                if (!connected[0]) {
                    opening--;
                }
                next = inFlight < poolSize ? waiting.poll() : null;
                if (next != null) {
                    inFlight++;
                    opening++;
                }
            }
            String reason = sent ? "successfully sent cancel request" : "failed to send cancel request";
            request.loop().execute(() -> request.closed.accept(reason));
            if (next != null) {
                send(next);
            }
        }

        void drop() {
            List<Request> dropped;
            synchronized (this) {
                dropped = new ArrayList<>(waiting);
                waiting.clear();
            }
            dropped.forEach(request -> request.loop().execute(() -> request.closed.accept("peer removed")));
        }

        synchronized Row row(int peerId) {
            int active = inFlight - opening;
            return new Row(peerId, active, waiting.size() + opening, active, opening);
        }
    }
}
