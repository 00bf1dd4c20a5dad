package io.pgmux.proxy.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioDomainSocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The event loops and channel types of one proxy: epoll when the native library loads (it is an optional
 * dependency), NIO otherwise. Clients and server connections share the loops, and the TCP socket options.
 */
public final class Transport {
    private static final Logger log = LoggerFactory.getLogger(Transport.class);
    /**
     * Every client channel's receive-buffer sizing, one instance for all: Netty's default makes one per channel,
     * though only the handle it gives each channel holds state.
     */
    static final RecvByteBufAllocator RECEIVE_BUFFERS = new AdaptiveRecvByteBufAllocator();
    private final EventLoopGroup group;
    private final Class<? extends SocketChannel> socketChannel;
    private final Class<? extends ServerChannel> serverChannel;
    private final boolean epoll;
    private final TcpOptions tcp;

    private Transport(int threads, boolean epoll, TcpOptions tcp) {
        this.epoll = epoll;
        this.tcp = tcp;
        IoHandlerFactory factory = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        this.group = new MultiThreadIoEventLoopGroup(threads, factory);
        this.socketChannel = epoll ? EpollSocketChannel.class : NioSocketChannel.class;
        this.serverChannel = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    /**
     * @param threads event loop threads; 0 means {@link #defaultThreads()}
     */
    public static Transport create(int threads) {
        return create(threads, TcpOptions.DEFAULTS);
    }

    /**
     * @param threads event loop threads; 0 means {@link #defaultThreads()}
     * @throws IllegalStateException for an option that cannot be had without epoll (so_reuseport)
     */
    public static Transport create(int threads, TcpOptions tcp) {
        int n = threads > 0 ? threads : defaultThreads();
        boolean epoll = epollAvailable();
        if (!epoll) {
            List<String> notApplied = tcp.notAppliedWithoutEpoll();
            if (!notApplied.isEmpty()) {
                log.warn("{} not applied: they need Netty's epoll transport (Linux x86_64), which could not be"
                        + " loaded here", String.join(", ", notApplied));
            }
        }
        return new Transport(n, epoll, tcp);
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

    public EventLoopGroup group() {
        return group;
    }

    public Class<? extends SocketChannel> socketChannel() {
        return socketChannel;
    }

    /** The address of a Unix socket file, in the form this transport's channels connect to. */
    public SocketAddress unixSocketAddress(String path) {
        return epoll ? new DomainSocketAddress(path) : UnixDomainSocketAddress.of(path);
    }

    /** The channel type that connects to {@code address}: a Unix socket's, or TCP's. */
    public Class<? extends Channel> channelFor(SocketAddress address) {
        if (address instanceof DomainSocketAddress || address instanceof UnixDomainSocketAddress) {
            return epoll ? EpollDomainSocketChannel.class : NioDomainSocketChannel.class;
        }
        return socketChannel;
    }

    public Class<? extends ServerChannel> serverChannel() {
        return serverChannel;
    }

    /** The options of each TCP connection to a server. */
    public Bootstrap tcpOptions(Bootstrap bootstrap) {
        tcp.connection(epoll).forEach((option, value) -> bootstrap.option(unchecked(option), value));
        return bootstrap;
    }

    TcpOptions tcp() {
        return tcp;
    }

    @SuppressWarnings("unchecked")
    static ChannelOption<Object> unchecked(ChannelOption<?> option) {
        return (ChannelOption<Object>) option;
    }

    public boolean isEpoll() {
        return epoll;
    }
}
