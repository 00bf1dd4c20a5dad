package io.pgmux.jmh.load;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoEvent;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoEvent;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.unix.FileDescriptor;
import io.netty.channel.unix.Socket;
import io.netty.util.concurrent.Future;
import io.netty.util.internal.PlatformDependent;
import io.pgmux.proxy.auth.ScramException;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * {@link NettyFloor}'s pooler without Netty's channels: a socket is one of Netty's native file descriptors, registered
 * as it is on an epoll event loop (Netty 4.2's {@code IoHandle}), read into one buffer of the loop and written from it
 * straight to the other side's socket, as PgBouncer reads into a packet buffer and sends from it. No pipeline,
 * handler context, channel configuration, outbound buffer, promise or receive-size handle per connection, and nothing
 * allocated per read or write while the other side takes what is sent; bytes it does not take are copied aside and
 * the side they came from stops being read until they are gone. Otherwise the same least work: messages followed by
 * their headers, a server lent from a client's first message to the ReadyForQuery that says idle, clients queued
 * first come first served, servers logged in once, clients let in without a password. Not a pooler to use; what its
 * CPU per transaction and memory per idle client say is how much of a pooler's cost on this JVM is Netty's channels.
 *
 * <pre>
 * java -cp benchmarks.jar io.pgmux.jmh.load.SocketFloor --port 6691 --server HOST:PORT --database D --user U
 *      --password PW [--pool-size 20] [--seconds N]
 * </pre>
 *
 * Prints {@code listening PORT} once it takes clients, and runs until killed, or for {@code --seconds}.
 */
public final class SocketFloor implements Floor {
    private static final int SSL_REQUEST = 80877103;
    private static final int GSSENC_REQUEST = 80877104;
    private static final int CANCEL_REQUEST = 80877102;
    private static final int HEADER = 5;
    /** The most one read takes: the proxy's largest receive buffer. */
    private static final int READ_SIZE = 65536;
    /** The size of a kept request or answer that fits a spare buffer: PgBouncer's default pkt_buf. */
    private static final int SPARE_SIZE = 4096;
    private static final int MAX_SPARES = 1024;
    private static final int IN = EpollIoOps.EPOLLIN.value();
    private static final int OUT = EpollIoOps.EPOLLOUT.value();
    private static final int ERR = EpollIoOps.EPOLLERR.value();
    private static final int RDHUP = EpollIoOps.EPOLLRDHUP.value();
    /** EPOLLHUP, which epoll reports unasked; EpollIoOps has no constant for it. */
    private static final int HUP = 0x10;
    private static final EpollIoOps READ = EpollIoOps.EPOLLIN.with(EpollIoOps.EPOLLRDHUP);
    private static final EpollIoOps READ_WRITE = READ.with(EpollIoOps.EPOLLOUT);
    private static final EpollIoOps WRITE = EpollIoOps.EPOLLOUT.with(EpollIoOps.EPOLLRDHUP);
    private static final EpollIoOps HANG_UP = EpollIoOps.EPOLLRDHUP;
    private static final ByteBuffer NO_TLS = ByteBuffer.allocateDirect(1).put(0, (byte) 'N');
    private static final ByteBuffer WELCOME;

    static {
        byte[] welcome = Floor.welcome();
        WELCOME = ByteBuffer.allocateDirect(welcome.length).put(welcome).flip();
    }

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    private final IoEventLoop loop = (IoEventLoop) group.next();
    /** Every read's bytes, forwarded before the next read: read and written on the loop only, as all below. */
    private final ByteBuffer readBuffer = ByteBuffer.allocateDirect(READ_SIZE);
    private final long readAddress = PlatformDependent.directBufferAddress(readBuffer);
    private final ArrayDeque<Server> idle = new ArrayDeque<>();
    private final ArrayDeque<Client> waiting = new ArrayDeque<>();
    /** Buffers for bytes waiting to be sent, of {@link #SPARE_SIZE}, taken and given back on the loop. */
    private final ArrayDeque<ByteBuffer> spares = new ArrayDeque<>();
    private Listener listener;

    private SocketFloor(int port, String serverHost, int serverPort, String database, String user, String password,
            int poolSize) throws IOException {
        try {
            InetSocketAddress server = new InetSocketAddress(serverHost, serverPort);
            for (int i = 0; i < poolSize; i++) {
                Server s = new Server(logIn(server, database, user, password));
                try {
                    onLoop(() -> {
                        s.register();
                        idle.addLast(s);
                    });
                } catch (IOException | RuntimeException e) {
                    s.close(); // not registered, so not closed by the loop's shutdown
                    throw e;
                }
            }
            Socket socket = Socket.newSocketStream();
            Listener l = new Listener(socket);
            try {
                socket.setReuseAddress(true);
                socket.bind(new InetSocketAddress("127.0.0.1", port));
                socket.listen(4096);
                onLoop(l::register);
            } catch (IOException | RuntimeException e) {
                try {
                    l.close();
                } catch (IOException closing) {
                    e.addSuppressed(closing);
                }
                throw e;
            }
            listener = l;
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    static SocketFloor start(int port, String serverHost, int serverPort, String database, String user,
            String password, int poolSize) throws IOException {
        return new SocketFloor(port, serverHost, serverPort, database, user, password, poolSize);
    }

    @Override
    public int port() {
        return listener.socket.localAddress().getPort();
    }

    /** Closes every socket: the loop closes what is registered on it as it shuts down. */
    @Override
    public void close() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    public static void main(String[] args) throws Exception {
        Floor.run(args, 6691, SocketFloor::start);
    }

    private interface LoopTask {
        void run() throws IOException;
    }

    private void onLoop(LoopTask task) throws IOException {
        Future<Void> done = loop.submit(() -> {
            task.run();
            return null;
        });
        done.awaitUninterruptibly();
        if (!done.isSuccess()) {
            if (done.cause() instanceof IOException io) {
                throw io;
            }
            throw new IllegalStateException(done.cause());
        }
    }

    /**
     * {@code kept}'s bytes (position to limit) followed by {@code src}'s from {@code pos} to {@code end}, in a spare
     * buffer of the loop when they fit one: a new direct buffer is zeroed and freed only by a collection, which under
     * waiting clients cost more than the rest of the floor.
     */
    private ByteBuffer keep(ByteBuffer kept, ByteBuffer src, int pos, int end) {
        int n = end - pos;
        ByteBuffer to = kept;
        if (to == null || to.capacity() - to.limit() < n) {
            int have = to == null ? 0 : to.remaining();
            to = have + n <= SPARE_SIZE ? spare() : ByteBuffer.allocateDirect(2 * (have + n));
            to.clear();
            if (kept != null) {
                to.put(kept);
                release(kept);
            }
            to.flip();
        }
        int at = to.limit();
        to.limit(at + n);
        to.put(at, src, pos, n);
        return to;
    }

    private ByteBuffer spare() {
        ByteBuffer spare = spares.pollFirst();
        return spare != null ? spare : ByteBuffer.allocateDirect(SPARE_SIZE);
    }

    /** A buffer whose bytes are sent or no longer wanted: kept for the next wait when it is a spare's size. */
    private void release(ByteBuffer buffer) {
        if (buffer != null && buffer.capacity() == SPARE_SIZE && spares.size() < MAX_SPARES) {
            spares.addFirst(buffer);
        }
    }

    private static long address(ByteBuffer direct) {
        return PlatformDependent.directBufferAddress(direct);
    }

    private void giveBack(Server server) {
        if (!server.open) {
            return;
        }
        Client next = waiting.pollFirst();
        if (next != null) {
            next.lend(server);
        } else {
            idle.addFirst(server);
        }
    }

    /**
     * Logs a server in before the loop takes it, waiting on the socket by polling: done once per server at the
     * start, never while clients are served.
     */
    private static Socket logIn(InetSocketAddress address, String database, String user, String password)
            throws IOException {
        Socket socket = Socket.newSocketStream();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            socket.setTcpNoDelay(true);
            boolean connected = socket.connect(address);
            while (!connected) {
                waitABit(deadline);
                connected = socket.finishConnect();
            }
            OutputStream out = polledOutput(socket, deadline);
            out.write(RawLogin.startupPacket(database, user));
            RawLogin.exchange(new DataInputStream(new BufferedInputStream(polledInput(socket, deadline), 1024)), out,
                    user, password);
            return socket;
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        } catch (ScramException e) {
            socket.close();
            throw new IOException("server login failed: " + e.getMessage(), e);
        }
    }

    /** The socket's bytes as a stream that waits for them by polling, for {@link RawLogin#exchange}. */
    private static InputStream polledInput(Socket socket, long deadline) {
        ByteBuffer received = ByteBuffer.allocateDirect(1024);
        return new InputStream() {
            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] to, int offset, int length) throws IOException {
                if (length == 0) {
                    return 0;
                }
                while (true) {
                    int n = socket.recv(received, 0, Math.min(length, received.capacity()));
                    if (n > 0) {
                        received.get(0, to, offset, n);
                    }
                    if (n != 0) {
                        return n;
                    }
                    waitABit(deadline);
                }
            }
        };
    }

    /** A stream whose writes go to the socket whole, waiting by polling where it takes them in parts. */
    private static OutputStream polledOutput(Socket socket, long deadline) {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] bytes, int offset, int length) throws IOException {
                ByteBuffer out = ByteBuffer.allocateDirect(length).put(bytes, offset, length).flip();
                while (out.hasRemaining()) {
                    int sent = socket.send(out, out.position(), out.limit());
                    out.position(out.position() + sent);
                    if (sent == 0) {
                        waitABit(deadline);
                    }
                }
            }
        };
    }

    private static void waitABit(long deadline) throws IOException {
        if (System.nanoTime() - deadline > 0) {
            throw new IOException("the server did not answer within 10 s");
        }
        try {
            Thread.sleep(1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted during a server login", e);
        }
    }

    /** A client's or a server's socket, and what the floor keeps of it. */
    private abstract class Conn implements EpollIoHandle {
        final Socket socket;
        IoRegistration registration;
        boolean open = true;
        boolean reading = true;
        /** Bytes this socket has not taken yet, from position to limit; null when none. */
        ByteBuffer unsent;
        /** The other side, not read until {@link #unsent} is sent. */
        Conn paused;
        // where this side's messages begin and end, across reads
        byte type;
        byte lastType;
        byte status;
        int headerHave;
        int length;
        int remain;

        Conn(Socket socket) {
            this.socket = socket;
        }

        @Override
        public final FileDescriptor fd() {
            return socket;
        }

        /** On the loop: a registration done at once. */
        final void register() throws IOException {
            registration = loop.register(this).getNow();
            if (registration == null) {
                throw new IOException("the event loop did not take " + socket);
            }
            interest();
        }

        final void interest() {
            registration.submit(unsent == null ? (reading ? READ : HANG_UP) : (reading ? READ_WRITE : WRITE));
        }

        @Override
        public final void handle(IoRegistration registration, IoEvent event) {
            int ops = ((EpollIoEvent) event).ops().value();
            try {
                if ((ops & OUT) != 0 && open) {
                    writable();
                }
                if ((ops & (IN | RDHUP | ERR | HUP)) != 0 && open) {
                    if (reading) {
                        readable();
                    } else if ((ops & (RDHUP | ERR | HUP)) != 0) {
                        close();
                    }
                }
            } catch (IOException | RuntimeException e) {
                close();
            }
        }

        /** One read into the loop's buffer, its bytes handed on; the end of the peer's stream closes. */
        final void readable() throws IOException {
            int n = socket.recvAddress(readAddress, 0, READ_SIZE);
            if (n < 0) {
                close();
            } else if (n > 0) {
                bytesRead(n);
            }
        }

        /** The {@code n} bytes just read, at the start of the loop's buffer. */
        abstract void bytesRead(int n);

        /** What the rest of the floor lets go of this connection once it is closed. */
        abstract void detach();

        /**
         * Sends {@code src}'s bytes from {@code pos} to {@code end} to this socket. What it does not take is copied
         * aside and sent when it is writable again, and {@code from} is not read until then.
         */
        final void send(ByteBuffer src, long address, int pos, int end, Conn from) {
            if (!open) {
                return;
            }
            try {
                if (unsent == null) {
                    int at = pos + socket.sendAddress(address, pos, end);
                    if (at == end) {
                        return;
                    }
                    unsent = keep(null, src, at, end);
                    interest();
                } else {
                    unsent = keep(unsent, src, pos, end);
                }
                if (from != null && paused == null && from.reading) {
                    paused = from;
                    from.pause();
                }
            } catch (IOException e) {
                close();
            }
        }

        final void writable() throws IOException {
            if (unsent != null) {
                int at = unsent.position();
                unsent.position(at + socket.send(unsent, at, unsent.limit()));
                if (unsent.hasRemaining()) {
                    return;
                }
                release(unsent);
                unsent = null;
            }
            interest();
            Conn other = paused;
            paused = null;
            if (other != null) {
                other.resume();
            }
        }

        final void pause() {
            reading = false;
            interest();
        }

        final void resume() {
            if (open && !reading) {
                reading = true;
                interest();
            }
        }

        /**
         * Follows the message boundaries over the loop buffer's bytes from {@code pos} to {@code end}, keeping the
         * type of the last whole message and the status of the last ReadyForQuery.
         */
        final void scan(int pos, int end) {
            ByteBuffer b = readBuffer;
            while (pos < end) {
                if (remain > 0) {
                    if (type == 'Z') {
                        status = b.get(pos); // a ReadyForQuery's body is its status alone
                    }
                    int n = Math.min(remain, end - pos);
                    pos += n;
                    remain -= n;
                    if (remain == 0) {
                        lastType = type;
                    }
                } else if (headerHave == 0 && end - pos >= HEADER) {
                    type = b.get(pos);
                    remain = bodyLength(b.getInt(pos + 1));
                    pos += HEADER;
                    if (remain == 0) {
                        lastType = type;
                    }
                } else {
                    // a header cut by the end of a read
                    byte next = b.get(pos++);
                    if (headerHave == 0) {
                        type = next;
                        length = 0;
                    } else {
                        length = length << 8 | (next & 0xff);
                    }
                    if (++headerHave == HEADER) {
                        headerHave = 0;
                        remain = bodyLength(length);
                        if (remain == 0) {
                            lastType = type;
                        }
                    }
                }
            }
        }

        final boolean atMessageEnd() {
            return headerHave == 0 && remain == 0;
        }

        private static int bodyLength(int length) {
            if (length < 4) {
                throw new IllegalStateException("message length " + length);
            }
            return length - 4;
        }

        /** Netty's, when the loop shuts down, and the floor's own when either end is done. */
        @Override
        public final void close() {
            if (!open) {
                return;
            }
            open = false;
            if (registration != null) {
                registration.cancel();
            }
            try {
                socket.close();
            } catch (IOException ignored) {
                // closed either way
            }
            release(unsent);
            unsent = null;
            Conn other = paused;
            paused = null;
            if (other != null) {
                other.resume();
            }
            detach();
        }
    }

    private final class Client extends Conn {
        /** The startup packet's bytes so far; null once logged in. */
        private byte[] startup = new byte[0];
        private Server server;
        /** What was read while waiting for a server, sent to the one lent. */
        private ByteBuffer held;

        Client(Socket socket) {
            super(socket);
        }

        @Override
        void bytesRead(int n) {
            if (startup != null) {
                startup(n);
            } else {
                received(0, n);
            }
        }

        private void received(int pos, int end) {
            if (!open) {
                return;
            }
            if (atMessageEnd() && readBuffer.get(pos) == 'X') {
                // a Terminate is the floor's to act on: passed on, it would end the server's session for good
                close();
                return;
            }
            if (server == null) {
                if (!atMessageEnd()) {
                    // the rest of a message whose server was given back (a COPY the server ended early)
                    close();
                    return;
                }
                Server s = idle.pollFirst();
                if (s == null) {
                    scan(pos, end);
                    held = keep(held, readBuffer, pos, end);
                    waiting.addLast(this);
                    pause();
                    return;
                }
                server = s;
                s.client = this;
            }
            scan(pos, end);
            server.send(readBuffer, readAddress, pos, end, this);
        }

        void lend(Server s) {
            server = s;
            s.client = this;
            ByteBuffer bytes = held;
            held = null;
            resume();
            s.send(bytes, address(bytes), bytes.position(), bytes.limit(), this);
            release(bytes);
        }

        private void startup(int n) {
            byte[] bytes = Arrays.copyOf(startup, startup.length + n);
            readBuffer.get(0, bytes, startup.length, n);
            startup = bytes;
            while (startup.length >= 8) {
                ByteBuffer packet = ByteBuffer.wrap(startup);
                int length = packet.getInt(0);
                if (length < 8 || length > 10_000) {
                    close();
                    return;
                }
                if (startup.length < length) {
                    return;
                }
                int code = packet.getInt(4);
                byte[] rest = Arrays.copyOfRange(startup, length, startup.length);
                if (code == CANCEL_REQUEST) {
                    close();
                    return;
                }
                if (code == SSL_REQUEST || code == GSSENC_REQUEST) {
                    send(NO_TLS, address(NO_TLS), 0, 1, null);
                    if (!open) {
                        return;
                    }
                    startup = rest;
                    continue;
                }
                send(WELCOME, address(WELCOME), 0, WELCOME.limit(), null);
                if (!open) {
                    return;
                }
                startup = null;
                if (rest.length > 0) {
                    readBuffer.put(0, rest);
                    received(0, rest.length);
                }
                return;
            }
        }

        @Override
        void detach() {
            waiting.remove(this);
            release(held);
            held = null;
            Server s = server;
            if (s != null) {
                server = null;
                s.client = null;
                if (s.paused == this) {
                    s.paused = null;
                }
                giveBack(s);
            }
        }
    }

    private final class Server extends Conn {
        private Client client;

        Server(Socket socket) {
            super(socket);
        }

        @Override
        void bytesRead(int n) {
            scan(0, n);
            Client to = client;
            if (to == null) {
                return; // a notice to no client
            }
            to.send(readBuffer, readAddress, 0, n, this);
            // the loan ends where both sides are between messages: a client still sending (the rest of a COPY the
            // server refused) keeps its server until it is
            if (client == to && atMessageEnd() && lastType == 'Z' && status == 'I' && to.atMessageEnd()) {
                client = null;
                to.server = null;
                if (to.paused == this) {
                    to.paused = null;
                    resume();
                }
                giveBack(this);
            }
        }

        @Override
        void detach() {
            idle.remove(this);
            Client c = client;
            client = null;
            if (c != null) {
                c.server = null;
                c.close();
            }
        }
    }

    /** The listening socket: accepts every client waiting, each a {@link Client} registered on the loop. */
    private final class Listener implements EpollIoHandle {
        final Socket socket;
        /** Where accept writes a client's address, which the floor does not keep. */
        private final byte[] address = new byte[26];
        private IoRegistration registration;

        Listener(Socket socket) {
            this.socket = socket;
        }

        @Override
        public FileDescriptor fd() {
            return socket;
        }

        void register() {
            registration = loop.register(this).getNow();
            registration.submit(EpollIoOps.EPOLLIN);
        }

        @Override
        public void handle(IoRegistration registration, IoEvent event) {
            try {
                for (int fd = socket.accept(address); fd >= 0; fd = socket.accept(address)) {
                    Client client = new Client(new Socket(fd));
                    try {
                        client.socket.setTcpNoDelay(true);
                        client.register();
                    } catch (IOException | RuntimeException e) {
                        client.close();
                    }
                }
            } catch (IOException e) {
                // out of descriptors or the like: the listener stays readable and the loop tries again at once, a
                // busy loop until a descriptor is free, which a floor run with its few hundred sockets never meets
            }
        }

        @Override
        public void close() throws IOException {
            if (registration != null) {
                registration.cancel();
            }
            socket.close();
        }
    }
}
