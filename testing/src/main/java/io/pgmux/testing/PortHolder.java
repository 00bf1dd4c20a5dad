package io.pgmux.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * Keeps a port that a stopped server left, so that no other process takes it: every connection is accepted and
 * reset at once, as close to a refused connection as a listening socket gets.
 */
final class PortHolder implements AutoCloseable {
    private final ServerSocket socket;

    private PortHolder(ServerSocket socket) {
        this.socket = socket;
        Thread refuser = new Thread(this::refuse, "pgmux-test-port-" + socket.getLocalPort());
        refuser.setDaemon(true);
        refuser.start();
    }

    static PortHolder hold(String host, int port) {
        try {
            ServerSocket socket = new ServerSocket();
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(host, port));
            return new PortHolder(socket);
        } catch (IOException e) {
            throw new UncheckedIOException("could not keep port " + port + " of the stopped server", e);
        }
    }

    private void refuse() {
        while (!socket.isClosed()) {
            try (Socket connection = socket.accept()) {
                connection.setSoLinger(true, 0);
            } catch (IOException closedOrReset) {
                // closed by close(), or a client gone first: either way nothing to do
            }
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
