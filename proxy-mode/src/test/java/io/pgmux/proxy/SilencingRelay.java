package io.pgmux.proxy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP relay in front of a server that can lose what passes, then cut every connection without a word: the pooler
 * sees its server close, with no FATAL and no answer, as after a lost network path or a backend gone without
 * saying so. What reaches the server still runs there; what is lost in either direction is never delivered.
 */
final class SilencingRelay implements AutoCloseable {
    private final ServerSocket listener;
    private final String host;
    private final int port;
    /** The sockets the pooler opened, and those to the server. */
    private final List<Socket> fromPooler = new CopyOnWriteArrayList<>();
    private final List<Socket> toServer = new CopyOnWriteArrayList<>();
    private final AtomicLong lostRequestBytes = new AtomicLong();
    private final AtomicLong lostAnswerBytes = new AtomicLong();
    private volatile boolean losingRequests;
    private volatile boolean losingAnswers;

    SilencingRelay(String host, int port) throws IOException {
        this.host = host;
        this.port = port;
        listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        TestRelays.daemon("silencing-relay", this::acceptAll);
    }

    int port() {
        return listener.getLocalPort();
    }

    /** What the pooler sends from now on never reaches the server. */
    void loseRequests() {
        losingRequests = true;
    }

    /** What the server answers from now on never reaches the pooler. */
    void loseAnswers() {
        losingAnswers = true;
    }

    /** Bytes of the pooler's lost so far. */
    long lostRequestBytes() {
        return lostRequestBytes.get();
    }

    /** Bytes of the server's lost so far. */
    long lostAnswerBytes() {
        return lostAnswerBytes.get();
    }

    /** Closes every connection relayed so far, both ends, and relays whatever comes next again. */
    void cut() {
        // first: a connection the pooler opens once it sees the cut must pass whole
        losingRequests = false;
        losingAnswers = false;
        List<Socket> relayed = new ArrayList<>(fromPooler);
        relayed.addAll(toServer);
        fromPooler.removeAll(relayed);
        toServer.removeAll(relayed);
        relayed.forEach(TestRelays::closeQuietly);
    }

    private void acceptAll() {
        try {
            while (true) {
                Socket pooler = listener.accept();
                Socket server = new Socket(host, port);
                fromPooler.add(pooler);
                toServer.add(server);
                TestRelays.daemon("silencing-relay", () -> copy(pooler, server, true));
                TestRelays.daemon("silencing-relay", () -> copy(server, pooler, false));
            }
        } catch (IOException closed) {
            // the relay is closed
        }
    }

    private void copy(Socket from, Socket to, boolean requests) {
        byte[] buffer = new byte[8192];
        try (InputStream in = from.getInputStream()) {
            OutputStream out = to.getOutputStream();
            for (int n; (n = in.read(buffer)) >= 0; ) {
                if (!(requests ? losingRequests : losingAnswers)) {
                    out.write(buffer, 0, n);
                    out.flush();
                } else {
                    (requests ? lostRequestBytes : lostAnswerBytes).addAndGet(n);
                }
            }
        } catch (IOException closed) {
            // one side is gone: so is the other, below
        }
        TestRelays.closeQuietly(from);
        TestRelays.closeQuietly(to);
    }

    @Override
    public void close() throws IOException {
        listener.close();
        cut();
    }
}
