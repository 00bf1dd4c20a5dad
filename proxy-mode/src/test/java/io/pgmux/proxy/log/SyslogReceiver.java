package io.pgmux.proxy.log;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDomainDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.unix.DomainDatagramPacket;
import io.netty.channel.unix.DomainSocketAddress;
import io.pgmux.proxy.config.SyslogFacility;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** A syslog daemon's end of the socket: a Unix datagram socket bound at a path, keeping each datagram as text. */
public final class SyslogReceiver implements AutoCloseable {
    /** Generous: a bound on a busy machine, never a race's judge. */
    private static final long TIMEOUT_SECONDS = 30;

    private final EventLoopGroup loop;
    private final Channel channel;
    private final Path path;
    private final BlockingQueue<String> datagrams = new LinkedBlockingQueue<>();
    private final List<String> seen = new ArrayList<>();

    public SyslogReceiver(Path path) {
        assumeTrue(Epoll.isAvailable(), "Unix datagram sockets need Netty's native epoll transport");
        this.path = path;
        this.loop = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        this.channel = new Bootstrap().group(loop).channel(EpollDomainDatagramChannel.class)
                .handler(new SimpleChannelInboundHandler<DomainDatagramPacket>() {
                    @Override
                    protected void channelRead0(ChannelHandlerContext ctx, DomainDatagramPacket packet) {
                        datagrams.add(packet.content().toString(StandardCharsets.UTF_8));
                    }
                })
                .bind(new DomainSocketAddress(path.toFile())).syncUninterruptibly().channel();
    }

    public Path path() {
        return path;
    }

    /** The first datagram from now on matching {@code pattern} (those before it are passed over), waiting for it. */
    public Matcher await(Pattern pattern) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        while (true) {
            String datagram = datagrams.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (datagram == null) {
                fail("no datagram matching " + pattern + " in time; received:\n" + String.join("\n", seen));
            }
            seen.add(datagram);
            Matcher m = pattern.matcher(datagram);
            if (m.matches()) {
                return m;
            }
        }
    }

    /**
     * Every datagram sent to the socket so far: a marker is sent after them and awaited, the socket keeping the
     * order of what it is sent.
     */
    public List<String> received() throws Exception {
        String marker = "marker " + System.nanoTime();
        try (Syslog syslog = Syslog.open(path, "receiver", SyslogFacility.USER)) {
            syslog.send(7, marker);
        }
        await(Pattern.compile(".* receiver\\[\\d+\\]: " + marker));
        return List.copyOf(seen.subList(0, seen.size() - 1));
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
