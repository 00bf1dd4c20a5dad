package io.pgmux.jdbc.physical;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.util.Properties;
import javax.net.SocketFactory;

/**
 * pgjdbc's default sockets, made by a factory that remembers which socket a login opened, so that the
 * pool can tell whether a server wrote to a connection while it sat idle (see
 * {@link PhysicalConnection#serverSpokeUnasked()}). pgjdbc instantiates it by name, from the
 * {@code socketFactory} property the connector sets when the application sets none of its own.
 */
public final class ProbedSocketFactory extends SocketFactory {
    /**
     * Where the sockets a login opens are recorded: set by the thread that runs the login and inherited
     * by the thread pgjdbc starts for a login with loginTimeout.
     */
    private static final InheritableThreadLocal<Capture> CAPTURE = new InheritableThreadLocal<>();

    /** pgjdbc passes its connection properties; there is nothing to configure. */
    public ProbedSocketFactory(Properties info) {
    }

    /** Records the sockets this thread's login opens from now on. */
    static Capture capture() {
        Capture c = new Capture();
        CAPTURE.set(c);
        return c;
    }

    /** Stops recording: the login is over, and the last socket it opened is the one it kept. */
    static Socket end(Capture c) {
        CAPTURE.remove();
        return c.seal();
    }

    private static Socket captured(Socket s) {
        Capture c = CAPTURE.get();
        if (c != null) {
            c.offer(s);
        }
        return s;
    }

    @Override
    public Socket createSocket() {
        return captured(new Socket());
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return captured(new Socket(host, port));
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        return captured(new Socket(host, port, localHost, localPort));
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        return captured(new Socket(host, port));
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
            throws IOException {
        return captured(new Socket(address, port, localAddress, localPort));
    }

    /**
     * The socket of one login. Sealed when the login returns, so that sockets pgjdbc opens later with
     * the same factory (cancel requests) are not taken for it.
     */
    static final class Capture {
        private volatile Socket socket;
        private volatile boolean sealed;

        void offer(Socket s) {
            if (!sealed) {
                socket = s;
            }
        }

        Socket seal() {
            sealed = true;
            return socket;
        }
    }
}
