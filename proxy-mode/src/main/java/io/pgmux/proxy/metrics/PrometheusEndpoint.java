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
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * pgmux's {@code metrics_listen}: {@code /metrics} in Prometheus's text format (OpenMetrics when the scraper asks
 * for it), served by Prometheus's own exporter on the JDK's HTTP server, on threads of its own, never on the
 * proxy's event loops. It holds every pool's {@code pgmux.*} meters and the JVM's. Micrometer's Prometheus registry
 * and the exporter are optional dependencies: only this class touches them, and only once the setting is on.
 */
public final class PrometheusEndpoint implements AutoCloseable {
    private final PrometheusMeterRegistry registry;
    private final MeterRegistry pools;
    private final JvmGcMetrics gc;
    private final HTTPServer server;
    private final InetSocketAddress address;

    private PrometheusEndpoint(PrometheusMeterRegistry registry, MeterRegistry pools, JvmGcMetrics gc,
            HTTPServer server, InetSocketAddress address) {
        this.registry = registry;
        this.pools = pools;
        this.gc = gc;
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
        HTTPServer server;
        try {
            server = HTTPServer.builder()
                    .inetAddress(InetAddress.getByName(address.getHostString()))
                    .port(address.getPort())
                    .registry(registry.getPrometheusRegistry())
                    .buildAndStart();
        } catch (IOException e) {
            gc.close();
            registry.close();
            throw new UncheckedIOException("metrics_listen: cannot listen on " + address.getHostString() + ":"
                    + address.getPort(), e);
        }
        return new PrometheusEndpoint(registry, pools, gc, server,
                new InetSocketAddress(address.getHostString(), server.getPort()));
    }

    /** Where it serves: the bound port, also when {@code metrics_listen} asked for port 0. */
    public InetSocketAddress address() {
        return address;
    }

    /** The trackers that publish each pool's meters here (and to the application's registry, if it gave one). */
    public MetricsTrackerFactory trackers() {
        return MetricsTrackerFactory.forRegistry(pools);
    }

    @Override
    public void close() {
        server.close();
        gc.close();
        registry.close();
    }
}
