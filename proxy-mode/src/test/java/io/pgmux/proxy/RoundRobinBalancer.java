package io.pgmux.proxy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP load balancer in front of several poolers, as peering is made for: each connection it accepts is relayed to
 * the next of its targets in turn, so that a client's cancel request, sent on a connection of its own, reaches
 * another pooler than the one its session is on.
 */
final class RoundRobinBalancer implements AutoCloseable {
    private final ServerSocket listener;
    private final List<Integer> targetPorts;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private int next;

    /** @param targetPorts the loopback ports relayed to, in turn from the first */
    RoundRobinBalancer(List<Integer> targetPorts) throws IOException {
        this.targetPorts = List.copyOf(targetPorts);
        listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        TestRelays.daemon("round-robin-balancer", this::acceptAll);
    }

    int port() {
        return listener.getLocalPort();
    }

    private void acceptAll() {
        try {
            while (true) {
                Socket accepted = listener.accept();
                int port = targetPorts.get(next);
                next = (next + 1) % targetPorts.size();
                Socket target = new Socket(InetAddress.getLoopbackAddress(), port);
                sockets.add(accepted);
                sockets.add(target);
                TestRelays.daemon("round-robin-balancer", () -> TestRelays.copy(accepted, target));
                TestRelays.daemon("round-robin-balancer", () -> TestRelays.copy(target, accepted));
            }
        } catch (IOException closed) {
            // the balancer is closed
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        sockets.forEach(TestRelays::closeQuietly);
    }
}
