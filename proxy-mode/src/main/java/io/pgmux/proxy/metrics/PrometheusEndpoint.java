package io.pgmux.proxy.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmInfoMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.pgmux.core.stats.MetricsTrackerFactory;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.pgmux.core.stats.micrometer.MicrometerMetricsTrackerFactory;
import io.prometheus.metrics.exporter.common.PrometheusScrapeHandler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * pgmux's {@code metrics_listen}: {@code /metrics} in Prometheus's text format (OpenMetrics when the scraper asks
 * for it), written by Prometheus's own scrape handler and served on an event loop of its own, never the proxy's.
 * Connections cost no thread: one that sends its request slowly or not at all holds only its socket until the
 * header timeout closes it, where a pool of worker threads reading heads would be held by as many such
 * connections. It holds every pool's {@code pgmux.*} meters and the JVM's. Micrometer's Prometheus registry and
 * the exporter are optional dependencies: only this package touches them, and only once the setting is on.
 */
public final class PrometheusEndpoint implements AutoCloseable {
    private final PrometheusMeterRegistry registry;
    private final MeterRegistry pools;
    private final JvmGcMetrics gc;
    private final EventLoopGroup group;
    private final Channel server;
    private final InetSocketAddress address;

    private PrometheusEndpoint(PrometheusMeterRegistry registry, MeterRegistry pools, JvmGcMetrics gc,
            EventLoopGroup group, Channel server, InetSocketAddress address) {
        this.registry = registry;
        this.pools = pools;
        this.gc = gc;
        this.group = group;
        this.server = server;
        this.address = address;
    }

    /**
     * Binds {@code address} and serves the meters.
     *
     * @param alsoTo a Micrometer {@code MeterRegistry} of the application's that receives the pools' meters too, or
     *     null
     * @throws UncheckedIOException naming {@code metrics_listen} and the address, when it cannot be bound
     */
    public static PrometheusEndpoint start(InetSocketAddress address, Object alsoTo) {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        JvmGcMetrics gc = new JvmGcMetrics();
        for (MeterBinder binder : new MeterBinder[] {new JvmMemoryMetrics(), gc, new JvmThreadMetrics(),
                new ClassLoaderMetrics(), new JvmInfoMetrics(), new ProcessorMetrics(), new UptimeMetrics(),
                new FileDescriptorMetrics()}) {
            binder.bindTo(registry);
        }
        MeterRegistry pools = registry;
        if (alsoTo != null) {
            pools = new CompositeMeterRegistry().add(registry).add((MeterRegistry) alsoTo);
        }
        PrometheusScrapeHandler scrape = new PrometheusScrapeHandler(registry.getPrometheusRegistry());
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("pgmux-metrics", true),
                NioIoHandler.newFactory());
        ChannelFuture bound;
        try {
            bound = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new MetricsHttpHandler(scrape));
                        }
                    })
                    .bind(InetAddress.getByName(address.getHostString()), address.getPort()).awaitUninterruptibly();
        } catch (IOException e) {
            stop(group, gc, registry);
            throw new UncheckedIOException("metrics_listen: cannot listen on " + address.getHostString() + ":"
                    + address.getPort(), e);
        }
        if (!bound.isSuccess()) {
            stop(group, gc, registry);
            Throwable cause = bound.cause();
            throw new UncheckedIOException("metrics_listen: cannot listen on " + address.getHostString() + ":"
                    + address.getPort(), cause instanceof IOException io ? io : new IOException(cause));
        }
        int port = ((InetSocketAddress) bound.channel().localAddress()).getPort();
        return new PrometheusEndpoint(registry, pools, gc, group, bound.channel(),
                new InetSocketAddress(address.getHostString(), port));
    }

    /** Where it serves: the bound port, also when {@code metrics_listen} asked for port 0. */
    public InetSocketAddress address() {
        return address;
    }

    /** The trackers that publish each pool's meters here (and to the application's registry, if it gave one). */
    public MetricsTrackerFactory trackers() {
        return new MicrometerMetricsTrackerFactory(pools);
    }

    @Override
    public void close() {
        server.close().awaitUninterruptibly();
        stop(group, gc, registry);
    }

    private static void stop(EventLoopGroup group, JvmGcMetrics gc, PrometheusMeterRegistry registry) {
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
        gc.close();
        registry.close();
    }
}
