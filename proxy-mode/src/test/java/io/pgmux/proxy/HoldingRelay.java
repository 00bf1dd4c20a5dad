package io.pgmux.proxy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP relay in front of a server that can stop relaying: a connection it accepts once told to {@link #hold()} is
 * kept open and never answered, as a server that does not take it would; the relay counts those its other end
 * closed.
 */
final class HoldingRelay implements AutoCloseable {
    private final ServerSocket listener;
    private final String host;
    private final int port;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final AtomicInteger heldAndClosed = new AtomicInteger();
    private volatile boolean holding;

    HoldingRelay(String host, int port) throws IOException {
        this.host = host;
        this.port = port;
        listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        TestRelays.daemon("holding-relay", this::acceptAll);
    }

    int port() {
        return listener.getLocalPort();
    }

    /** Connections accepted from now on are held. */
    void hold() {
        holding = true;
    }

    /** How many held connections were closed by the side that opened them. */
    int heldAndClosed() {
        return heldAndClosed.get();
    }

    private void acceptAll() {
        try {
            while (true) {
                Socket accepted = listener.accept();
                sockets.add(accepted);
                if (holding) {
                    TestRelays.daemon("holding-relay", () -> {
                        drain(accepted);
                        heldAndClosed.incrementAndGet();
                    });
                } else {
                    Socket server = new Socket(host, port);
                    sockets.add(server);
                    TestRelays.daemon("holding-relay", () -> TestRelays.copy(accepted, server));
                    TestRelays.daemon("holding-relay", () -> TestRelays.copy(server, accepted));
                }
            }
        } catch (IOException closed) {
            // the relay is closed
        }
    }

    private static void drain(Socket socket) {
        try (InputStream in = socket.getInputStream()) {
            in.transferTo(OutputStream.nullOutputStream());
        } catch (IOException reset) {
            // closed all the same
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        sockets.forEach(TestRelays::closeQuietly);
    }
}
