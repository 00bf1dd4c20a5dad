package io.pgmux.proxy.log;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDomainDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.unix.DomainDatagramPacket;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.pgmux.proxy.config.SyslogFacility;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Log lines to the local syslog daemon, as PgBouncer's syslog(3) sends them: one datagram per line to the Unix
 * socket {@code /dev/log}, {@code <PRI>Mmm dd hh:mm:ss ident[pid]: message} (RFC 3164 as the C library writes it,
 * local time), the message's line breaks followed by a tab. It writes on a single event loop of its own, so that a
 * line logged on a client's loop never waits; when the daemon falls behind and the socket's buffer is full, lines
 * are dropped rather than queued without bound.
 */
public final class Syslog implements AutoCloseable {
    /** Where the socket is looked for instead of /dev/log; for tests, which bind a socket of their own. */
    public static final String SOCKET_PROPERTY = "io.pgmux.syslog.socket";

    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("MMM ppd HH:mm:ss", Locale.ENGLISH);
    private static final long PID = ProcessId.pid();

    private final EventLoopGroup loop;
    private final Channel channel;
    private final DomainSocketAddress target;
    private final String ident;
    private final SyslogFacility facility;

    private Syslog(EventLoopGroup loop, Channel channel, DomainSocketAddress target, String ident,
            SyslogFacility facility) {
        this.loop = loop;
        this.channel = channel;
        this.target = target;
        this.ident = ident;
        this.facility = facility;
    }

    /** /dev/log, unless {@link #SOCKET_PROPERTY} names another socket. */
    public static Path socket() {
        return Path.of(System.getProperty(SOCKET_PROPERTY, "/dev/log"));
    }

    /**
     * @throws IOException why the socket cannot be written to: there is none at {@code socket}, or no native
     *     epoll transport to write to a Unix datagram socket with
     */
    public static Syslog open(Path socket, String ident, SyslogFacility facility) throws IOException {
        if (!Epoll.isAvailable()) {
            throw new IOException("writing to " + socket + " needs Netty's native epoll transport (Linux): "
                    + Epoll.unavailabilityCause().getMessage());
        }
        if (!Files.exists(socket)) {
            throw new IOException(socket + " does not exist");
        }
        EventLoopGroup loop = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("pgmux-syslog", true),
                EpollIoHandler.newFactory());
        try {
            Channel channel = new Bootstrap().group(loop).channel(EpollDomainDatagramChannel.class)
                    .option(ChannelOption.DATAGRAM_CHANNEL_ACTIVE_ON_REGISTRATION, true)
                    .handler(new ChannelInboundHandlerAdapter())
                    .register().syncUninterruptibly().channel();
            return new Syslog(loop, channel, new DomainSocketAddress(socket.toFile()), ident, facility);
        } catch (RuntimeException e) {
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw new IOException("cannot open a Unix datagram socket: " + e.getMessage(), e);
        }
    }

    public String ident() {
        return ident;
    }

    public SyslogFacility facility() {
        return facility;
    }

    /** Sends one line at {@code severity} (syslog's 0 emergency to 7 debug); never waits. */
    public void send(int severity, String message) {
        if (!channel.isWritable()) {
            return;
        }
        String line = "<" + (facility.code() * 8 + severity) + ">" + TIMESTAMP.format(LocalDateTime.now()) + " "
                + ident + "[" + PID + "]: " + message.replace("\n", "\n\t").stripTrailing();
        ByteBuf datagram = channel.alloc().buffer(line.length() + 16);
        datagram.writeCharSequence(line, StandardCharsets.UTF_8);
        channel.writeAndFlush(new DomainDatagramPacket(datagram, target), channel.voidPromise());
    }

    /** Sends what was sent so far, then lets the socket and its thread go. */
    @Override
    public void close() {
        channel.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
}
