package io.pgmux.proxy;

import java.io.IOException;
import java.net.Socket;

/** What the tests' TCP relays in front of a server share: their threads, and the copy of one direction. */
final class TestRelays {
    private TestRelays() {
    }

    /** Runs {@code task} on a daemon thread of its own, which a test that ends leaves behind harmlessly. */
    static void daemon(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Copies what {@code from} reads to {@code to} until either side is gone, then closes both. */
    static void copy(Socket from, Socket to) {
        try {
            from.getInputStream().transferTo(to.getOutputStream());
        } catch (IOException closed) {
            // one side is gone: so is the other, below
        }
        closeQuietly(from);
        closeQuietly(to);
    }

    static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing left to do
        }
    }
}
