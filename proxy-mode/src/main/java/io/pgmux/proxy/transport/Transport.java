package io.pgmux.proxy.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioDomainSocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.unix.DomainSocketChannel;
import io.netty.channel.unix.PeerCredentials;
import io.netty.channel.unix.UnixChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringDomainSocketChannel;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerDomainSocketChannel;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AttributeKey;
import io.pgmux.proxy.config.TransportKind;
import java.io.IOException;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The event loops and channel types of one proxy: epoll (the default) or io_uring when asked for and its native
 * library loads (both are optional dependencies), NIO otherwise. Clients and server connections share the loops,
 * and the TCP socket options.
 */
public final class Transport {
    private static final Logger log = LoggerFactory.getLogger(Transport.class);
    /** A Unix socket peer's pid, read once ({@link #peerPid}). */
    private static final AttributeKey<Integer> PEER_PID = AttributeKey.valueOf(Transport.class, "peerPid");
    /**
     * The smallest buffer a read gets. Netty's adaptive sizing shrinks to 64 bytes after a few small reads (a
     * Query of 63 bytes, a ReadyForQuery), so that the next message over 64 bytes arrives in two reads: the second
     * costs a read call more and, the first read having left a partial message, is framed with a holder and a slice
     * of its own. PgBouncer reads into its pkt_buf (4 KB) each time; reads come from pooled buffers, so a larger
     * floor costs no garbage, and a held request keeps at most that much more.
     */
    static final int RECEIVE_BUFFER_MINIMUM = 2048;
    /** The largest, Netty's default maximum. */
    static final int RECEIVE_BUFFER_MAXIMUM = 65536;
    /**
     * Every channel's receive-buffer sizing, clients' and servers', one instance for all: Netty's default makes one
     * per channel, though only the handle it gives each channel holds state.
     */
    static final ReceiveSizes RECEIVE_BUFFERS = new ReceiveSizes(RECEIVE_BUFFER_MINIMUM,
            RECEIVE_BUFFER_MAXIMUM);
    private final TransportKind kind;
    private final EventLoopGroup group;
    private final Class<? extends SocketChannel> socketChannel;
    private final Class<? extends ServerChannel> serverChannel;
    private final ReadGate readGate = new ReadGate();
    private final BlockingWork blockingWork = new BlockingWork();
    private final DnsHosts dnsHosts = new DnsHosts();
    /** Replaced by RELOAD and SET: sockets accepted or opened afterwards get the new options, as in PgBouncer. */
    private volatile TcpOptions tcp;

    private Transport(int threads, TransportKind kind, TcpOptions tcp) {
        this.kind = kind;
        this.tcp = tcp;
        this.group = switch (kind) {
            case EPOLL -> new EpollEventLoops(threads);
            case IO_URING -> new MultiThreadIoEventLoopGroup(threads, IoUringIoHandler.newFactory());
            case NIO -> new MultiThreadIoEventLoopGroup(threads, NioIoHandler.newFactory());
        };
        this.socketChannel = switch (kind) {
            case EPOLL -> EpollSocketChannel.class;
            case IO_URING -> IoUringSocketChannel.class;
            case NIO -> NioSocketChannel.class;
        };
        this.serverChannel = switch (kind) {
            case EPOLL -> EpollServerSocketChannel.class;
            case IO_URING -> IoUringServerSocketChannel.class;
            case NIO -> NioServerSocketChannel.class;
        };
    }

    /**
     * @param threads event loop threads; 0 means {@link #defaultThreads()}
     */
    public static Transport create(int threads) {
        return create(threads, TransportKind.EPOLL, TcpOptions.DEFAULTS);
    }

    /**
     * @param threads event loop threads; 0 means {@link #defaultThreads()}
     * @param kind the transport asked for: epoll falls back to NIO where it cannot load, io_uring does not
     * @throws IllegalStateException for io_uring where it cannot run, and for an option that cannot be had
     *     without epoll or io_uring (so_reuseport)
     */
    public static Transport create(int threads, TransportKind kind, TcpOptions tcp) {
        int n = threads > 0 ? threads : defaultThreads();
        TransportKind used = kind;
        if (kind == TransportKind.IO_URING && !ioUringAvailable()) {
            throw new IllegalStateException("transport = io_uring: not available here (" + ioUringUnavailability()
                    + "); set transport = epoll");
        }
        if (kind == TransportKind.EPOLL && !epollAvailable()) {
            used = TransportKind.NIO;
        }
        if (used == TransportKind.NIO) {
            List<String> notApplied = tcp.notAppliedWithoutNative();
            if (!notApplied.isEmpty()) {
                log.warn("{} not applied: they need Netty's epoll or io_uring transport (Linux x86_64), which"
                        + " could not be loaded here", String.join(", ", notApplied));
            }
        }
        return new Transport(n, used, tcp);
    }

    /**
     * One event loop per two cores, at least one. The proxy shares its machine with the application it lives
     * in, and often with PostgreSQL and the clients: on 2 cores, pgbench through one loop ran 7 to 21% more
     * transactions than through two, whose wake-ups competed with the server's backends for the same cores.
     */
    public static int defaultThreads() {
        return Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
    }

    private static boolean epollAvailable() {
        try {
            return Epoll.isAvailable();
        } catch (LinkageError e) {
            return false;
        }
    }

    private static boolean ioUringAvailable() {
        try {
            return IoUring.isAvailable();
        } catch (LinkageError e) {
            return false;
        }
    }

    private static String ioUringUnavailability() {
        try {
            Throwable cause = IoUring.unavailabilityCause();
            return cause == null ? "unknown cause" : cause.getMessage();
        } catch (LinkageError e) {
            return "netty-transport-native-io_uring is not on the class path";
        }
    }

    /**
     * The credentials of a Unix socket client, or null for any other channel: what the admin console's rule for
     * the pooler's own OS user reads.
     *
     * @throws IOException when the socket cannot tell them
     */
    public static PeerCredentials peerCredentials(Channel channel) throws IOException {
        if (channel instanceof EpollDomainSocketChannel epoll) {
            return epoll.peerCredentials();
        }
        if (channel instanceof IoUringDomainSocketChannel uring) {
            return uring.peerCredentials();
        }
        return null;
    }

    /**
     * The pid of the process at the other end of a Unix socket channel, for log lines; 0 when unknown or not a Unix
     * socket. Read once, while the socket is open, and kept on the channel for its closing line.
     */
    public static int peerPid(Channel channel) {
        if (!(channel instanceof DomainSocketChannel)) {
            return 0;
        }
        Integer known = channel.attr(PEER_PID).get();
        if (known != null) {
            return known;
        }
        int pid;
        try {
            PeerCredentials credentials = peerCredentials(channel);
            pid = credentials == null ? 0 : credentials.pid();
        } catch (IOException e) {
            pid = 0;
        }
        channel.attr(PEER_PID).set(pid);
        return pid;
    }

    /** A channel's file descriptor while it is open, for SHOW FDS, CLIENTS and SERVERS; -1 for one without. */
    public static int descriptor(Channel channel) {
        return channel instanceof UnixChannel unix && unix.isOpen() ? unix.fd().intValue() : -1;
    }

    /** The bytes a channel holds that its socket has not taken yet, for SHOW SOCKETS. */
    public static long pendingWriteBytes(Channel channel) {
        ChannelOutboundBuffer out = channel.unsafe().outboundBuffer();
        return out == null ? 0 : out.totalPendingWriteBytes();
    }

    /** The TLS session of a channel, or null for a plain one. */
    public static SSLSession tlsSession(Channel channel) {
        SslHandler tls = channel.pipeline().get(SslHandler.class);
        return tls == null ? null : tls.engine().getSession();
    }

    /** A TLS session as PgBouncer's SHOW CLIENTS and log lines print it ({@code protocol/cipher}); null for none. */
    public static String tlsText(SSLSession session) {
        return session == null ? null : session.getProtocol() + "/" + session.getCipherSuite();
    }

    public EventLoopGroup group() {
        return group;
    }

    /**
     * Closes the event loops, after a quiet period of none (what is queued on them still runs), then takes no more
     * blocking work: not before, as what runs on a loop may still hand some over.
     */
    public io.netty.util.concurrent.Future<?> shutdown() {
        return group.shutdownGracefully(0, 2, TimeUnit.SECONDS).addListener(done -> blockingWork.shutdown());
    }

    /** Where what blocks runs, off the event loops. */
    public BlockingWork blockingWork() {
        return blockingWork;
    }

    /** The host names looked up for this proxy's server connections. */
    public DnsHosts dnsHosts() {
        return dnsHosts;
    }

    public Class<? extends SocketChannel> socketChannel() {
        return socketChannel;
    }

    /** The address of a Unix socket file, in the form this transport's channels connect to. */
    public SocketAddress unixSocketAddress(String path) {
        return isNative() ? new DomainSocketAddress(path) : UnixDomainSocketAddress.of(path);
    }

    /**
     * The address of a socket in Linux's abstract namespace, {@code name} without its leading {@code @}: the
     * native transports take a path whose first byte is NUL, as the kernel does; the JDK's Unix sockets do not.
     *
     * @throws UnsupportedOperationException on NIO
     */
    public SocketAddress abstractSocketAddress(String name) {
        if (!isNative()) {
            throw new UnsupportedOperationException("a Unix socket in the abstract namespace (@" + name
                    + ") needs transport = epoll or io_uring");
        }
        return new DomainSocketAddress("\0" + name);
    }

    /** The channel type that connects to {@code address}: a Unix socket's, or TCP's. */
    public Class<? extends Channel> channelFor(SocketAddress address) {
        if (address instanceof DomainSocketAddress || address instanceof UnixDomainSocketAddress) {
            return switch (kind) {
                case EPOLL -> EpollDomainSocketChannel.class;
                case IO_URING -> IoUringDomainSocketChannel.class;
                case NIO -> NioDomainSocketChannel.class;
            };
        }
        return socketChannel;
    }

    public Class<? extends ServerChannel> serverChannel() {
        return serverChannel;
    }

    /** The listening Unix socket's channel type; epoll and io_uring only. */
    Class<? extends ServerChannel> serverDomainSocketChannel() {
        return kind == TransportKind.IO_URING ? IoUringServerDomainSocketChannel.class
                : EpollServerDomainSocketChannel.class;
    }

    /** The receive-buffer sizing of each connection to a server, TCP or Unix socket. */
    public Bootstrap receiveBuffers(Bootstrap bootstrap) {
        return bootstrap.option(ChannelOption.RCVBUF_ALLOCATOR, RECEIVE_BUFFERS);
    }

    /** The options of each TCP connection to a server. */
    public Bootstrap tcpOptions(Bootstrap bootstrap) {
        tcp.connection(kind).forEach((option, value) -> bootstrap.option(unchecked(option), value));
        return bootstrap;
    }

    /**
     * The options of a client's TCP connection, just accepted; set here rather than as the listener's child
     * options, which are fixed when it binds.
     */
    public void tuneAccepted(Channel channel) {
        if (channel instanceof SocketChannel) {
            tcp.connection(kind).forEach((option, value) -> channel.config().setOption(unchecked(option), value));
        }
    }

    /** SUSPEND's gate, which every client and server socket of this transport has in its pipeline. */
    public ReadGate readGate() {
        return readGate;
    }

    TcpOptions tcp() {
        return tcp;
    }

    /** The TCP options from now on; the listeners' own are {@link Listeners#tune}'s to change. */
    public void tcp(TcpOptions options) {
        this.tcp = java.util.Objects.requireNonNull(options, "options");
    }

    @SuppressWarnings("unchecked")
    static ChannelOption<Object> unchecked(ChannelOption<?> option) {
        return (ChannelOption<Object>) option;
    }

    /** The transport the loops run: the one asked for, or NIO where epoll could not load. */
    public TransportKind kind() {
        return kind;
    }

    public boolean isEpoll() {
        return kind == TransportKind.EPOLL;
    }

    /** epoll or io_uring: the Unix socket, peer credentials and the Linux-only TCP options are there. */
    public boolean isNative() {
        return kind != TransportKind.NIO;
    }
}
