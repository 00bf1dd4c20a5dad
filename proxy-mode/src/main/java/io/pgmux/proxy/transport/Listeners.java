package io.pgmux.proxy.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.uring.IoUringChannelOption;
import io.netty.util.NetUtil;
import io.pgmux.proxy.config.ListenAddresses;
import io.pgmux.proxy.config.TransportKind;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proxy's listening sockets, as PgBouncer's pooler.c opens them: one TCP socket per listen_addr entry, all on
 * the same port (the one the first bound, when listen_port is 0), and the Unix socket
 * {@code <unix_socket_dir>/.s.PGSQL.<port>} (epoll and io_uring only), in Linux's abstract namespace when the
 * directory is {@code @name}. Every socket hands its clients to the same handler.
 */
public final class Listeners {
    private static final Logger log = LoggerFactory.getLogger(Listeners.class);

    private final List<Channel> tcp;
    private final Channel unix;
    private final UnixSocketFile unixFile;
    /** {@code unix:<path>} of the Unix socket, or null without one. */
    private final String unixDescription;
    private final int port;
    private final int unixOwnerUid;

    private Listeners(List<Channel> tcp, Channel unix, UnixSocketFile unixFile, String unixDescription, int port,
            int unixOwnerUid) {
        this.tcp = tcp;
        this.unix = unix;
        this.unixFile = unixFile;
        this.unixDescription = unixDescription;
        this.port = port;
        this.unixOwnerUid = unixOwnerUid;
    }

    /**
     * @param listenAddr PgBouncer's listen_addr as kept ({@link ListenAddresses})
     * @param unixSocketDir PgBouncer's unix_socket_dir; empty for no Unix socket
     * @param unixSocketMode PgBouncer's unix_socket_mode
     * @param unixSocketGroup PgBouncer's unix_socket_group; empty keeps the process's group
     * @throws UncheckedIOException when an address cannot be bound; whatever was bound is closed again
     * @throws IllegalStateException when there is nowhere to listen, or the Unix socket is in use
     */
    public static Listeners bind(Transport transport, String listenAddr, int listenPort, String unixSocketDir,
            int unixSocketMode, String unixSocketGroup, ChannelHandler clientInitializer) {
        List<Channel> tcp = new ArrayList<>();
        int port = listenPort;
        try {
            ServerBootstrap tcpBootstrap = new ServerBootstrap().group(transport.group())
                    .channel(transport.serverChannel()).childHandler(clientInitializer)
                    .childOption(ChannelOption.RCVBUF_ALLOCATOR, Transport.RECEIVE_BUFFERS);
            transport.tcp().listener(transport.kind())
                    .forEach((option, value) -> tcpBootstrap.option(Transport.unchecked(option), value));
            for (String host : ListenAddresses.hosts(listenAddr)) {
                Channel channel = bindTcp(tcpBootstrap, host, port);
                tcp.add(channel);
                port = ((InetSocketAddress) channel.localAddress()).getPort();
            }
            boolean wantsUnix = !unixSocketDir.isEmpty();
            if (wantsUnix && !transport.isNative()) {
                log.warn("unix_socket_dir {}: Unix sockets need Netty's epoll or io_uring transport (Linux x86_64),"
                        + " which could not be loaded here; listening on TCP only", unixSocketDir);
                wantsUnix = false;
            }
            if (!wantsUnix) {
                if (tcp.isEmpty()) {
                    throw new IllegalStateException("nowhere to listen on: listen_addr is empty and there is no"
                            + " Unix socket");
                }
                return new Listeners(List.copyOf(tcp), null, null, null, port, -1);
            }
            if (port == 0) {
                throw new IllegalStateException("listen_port = 0 needs a listen_addr: the Unix socket is named after"
                        + " the port");
            }
            if (unixSocketDir.startsWith("@")) {
                return withAbstractSocket(transport, tcp, port, unixSocketDir, clientInitializer);
            }
            return withUnixSocket(transport, tcp, port, Path.of(unixSocketDir), unixSocketMode, unixSocketGroup,
                    clientInitializer);
        } catch (RuntimeException e) {
            tcp.forEach(channel -> channel.close().syncUninterruptibly());
            throw e;
        }
    }

    private static Listeners withUnixSocket(Transport transport, List<Channel> tcp, int port, Path directory,
            int mode, String group, ChannelHandler clientInitializer) {
        UnixSocketFile file;
        try {
            file = UnixSocketFile.claim(directory, port);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot lock the unix socket in " + directory + ": " + e.getMessage(), e);
        }
        Channel unix = null;
        try {
            unix = unixBootstrap(transport, clientInitializer)
                    .bind(new DomainSocketAddress(file.socket().toFile())).syncUninterruptibly().channel();
            file.setModeAndGroup(mode, group);
            return new Listeners(List.copyOf(tcp), unix, file, "unix:" + file.socket(), port, file.ownerUid());
        } catch (IllegalStateException e) {
            close(unix, file);
            throw e;
        } catch (Exception e) {
            close(unix, file);
            // syncUninterruptibly rethrows the bind failure (a checked exception) undeclared
            throw new UncheckedIOException("cannot listen on unix:" + file.socket(),
                    e instanceof IOException io ? io : new IOException(e.getMessage(), e));
        }
    }

    /**
     * unix_socket_dir {@code @name}: the socket {@code <unix_socket_dir>/.s.PGSQL.<port>} in Linux's abstract
     * namespace, as PgBouncer and PostgreSQL name it there. It has no file, so no lock, no mode and no group (PgBouncer
     * ignores unix_socket_mode and unix_socket_group for it too); the kernel refuses a second bind of the name.
     */
    private static Listeners withAbstractSocket(Transport transport, List<Channel> tcp, int port, String directory,
            ChannelHandler clientInitializer) {
        String path = directory + "/.s.PGSQL." + port;
        try {
            Channel unix = unixBootstrap(transport, clientInitializer)
                    .bind(transport.abstractSocketAddress(path.substring(1))).syncUninterruptibly().channel();
            return new Listeners(List.copyOf(tcp), unix, null, "unix:" + path, port,
                    (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        } catch (Exception e) {
            // syncUninterruptibly rethrows the bind failure (a checked exception) undeclared
            throw new UncheckedIOException("cannot listen on unix:" + path,
                    e instanceof IOException io ? io : new IOException(e.getMessage(), e));
        }
    }

    private static ServerBootstrap unixBootstrap(Transport transport, ChannelHandler clientInitializer) {
        return new ServerBootstrap().group(transport.group()).channel(transport.serverDomainSocketChannel())
                .childHandler(clientInitializer)
                .childOption(ChannelOption.RCVBUF_ALLOCATOR, Transport.RECEIVE_BUFFERS);
    }

    private static void close(Channel unix, UnixSocketFile file) {
        if (unix != null) {
            unix.close().syncUninterruptibly();
        }
        file.remove();
    }

    private static Channel bindTcp(ServerBootstrap bootstrap, String host, int port) {
        try {
            return bootstrap.bind(host, port).syncUninterruptibly().channel();
        } catch (Exception e) {
            if (host.equals(ListenAddresses.EVERY_ADDRESS)) {
                // a host without IPv6: every IPv4 address is what * can still mean
                log.info("listen_addr *: no IPv6 here ({}), listening on every IPv4 address", e.getMessage());
                return bindTcp(bootstrap, ListenAddresses.EVERY_IPV4_ADDRESS, port);
            }
            // syncUninterruptibly rethrows the bind failure (a checked exception) undeclared
            throw new UncheckedIOException("cannot listen on " + hostAndPort(host, port),
                    new IOException(e.getMessage(), e));
        }
    }

    /** {@code 127.0.0.1:6432}, {@code [::1]:6432}, as PgBouncer writes them. */
    static String hostAndPort(String host, int port) {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }

    /** The port every socket listens on (the Unix socket's name has it too). */
    public int port() {
        return port;
    }

    /** The first TCP address, or null when only the Unix socket listens. */
    public InetSocketAddress firstTcpAddress() {
        return tcp.isEmpty() ? null : (InetSocketAddress) tcp.get(0).localAddress();
    }

    /** The Unix socket's file, or null without one (or with one in the abstract namespace, which has none). */
    public Path unixSocket() {
        return unixFile == null ? null : unixFile.socket();
    }

    /** The uid owning the Unix socket (this process's), or -1 without one. */
    public int unixSocketOwnerUid() {
        return unixOwnerUid;
    }

    /** As PgBouncer logs them: {@code 127.0.0.1:6432}, {@code [::1]:6432}, {@code unix:/tmp/.s.PGSQL.6432}. */
    public List<String> describe() {
        List<String> addresses = new ArrayList<>();
        for (Channel channel : tcp) {
            InetSocketAddress address = (InetSocketAddress) channel.localAddress();
            addresses.add(hostAndPort(NetUtil.toAddressString(address.getAddress()), address.getPort()));
        }
        if (unixDescription != null) {
            addresses.add(unixDescription);
        }
        return addresses;
    }

    /** The listening sockets, TCP first, then the Unix socket's (SHOW FDS lists them as PgBouncer does). */
    public List<Channel> channels() {
        List<Channel> channels = new ArrayList<>(tcp);
        if (unix != null) {
            channels.add(unix);
        }
        return channels;
    }

    /**
     * RELOAD's tcp_defer_accept, on the TCP listeners bound now (listen_backlog and so_reuseport only take effect
     * when a socket binds, so they take a restart).
     */
    public void tune(TcpOptions options, TransportKind kind) {
        if (kind == TransportKind.NIO) {
            return;
        }
        int seconds = options.deferAccept() ? TcpOptions.DEFER_ACCEPT_SECONDS : 0;
        for (Channel channel : tcp) {
            if (kind == TransportKind.EPOLL) {
                channel.config().setOption(EpollChannelOption.TCP_DEFER_ACCEPT, seconds);
            } else {
                channel.config().setOption(IoUringChannelOption.TCP_DEFER_ACCEPT, seconds);
            }
        }
    }

    /** Removes the Unix socket's file and lock, for an exit that skips {@link #close()}. */
    public void removeUnixSocketFile() {
        if (unixFile != null) {
            unixFile.remove();
        }
    }

    /**
     * Stops accepting on TCP; the Unix socket stays, as PgBouncer keeps it while a shutdown waits, so that the admin
     * console can watch the drain.
     */
    public void closeTcp() {
        for (Channel channel : tcp) {
            channel.close().syncUninterruptibly();
        }
    }

    /** Stops accepting; the Unix socket's file and lock are removed. */
    public void close() {
        closeTcp();
        if (unix != null) {
            unix.close().syncUninterruptibly();
        }
        removeUnixSocketFile();
    }
}
