package io.pgmux.proxy;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.pgmux.core.pool.PoolRegistry;
import io.pgmux.core.stats.MetricsTrackerFactory;
import io.pgmux.proxy.admin.AdminConsole;
import io.pgmux.proxy.auth.QueriedUsers;
import io.pgmux.proxy.client.ClientConnection;
import io.pgmux.proxy.client.DirectTls;
import io.pgmux.proxy.client.JanitorPeriod;
import io.pgmux.proxy.client.ProxyContext;
import io.pgmux.proxy.config.ProxySetting;
import io.pgmux.proxy.config.ProxySettings;
import io.pgmux.proxy.config.TransportKind;
import io.pgmux.proxy.fleet.ProxyFleets;
import io.pgmux.proxy.log.ConnectionLog;
import io.pgmux.proxy.log.StatsLog;
import io.pgmux.proxy.metrics.PrometheusEndpoint;
import io.pgmux.proxy.prepared.PreparedStatementLimit;
import io.pgmux.proxy.protocol.FrontendMessageDecoder;
import io.pgmux.proxy.server.AutoDatabases;
import io.pgmux.proxy.server.CancelSender;
import io.pgmux.proxy.server.ReplicaHosts;
import io.pgmux.proxy.server.PeerPools;
import io.pgmux.proxy.server.ServerConnection;
import io.pgmux.proxy.transport.ClientSockets;
import io.pgmux.proxy.transport.Listeners;
import io.pgmux.proxy.transport.TcpOptions;
import io.pgmux.proxy.transport.Transport;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Starts a proxy from its builder: the event loops, the pools, what clients share, the admin console, then the
 * configuration applied ({@link SettingsApply}, the path RELOAD and SET take too), and only then the listeners.
 * What it started is stopped again when a later step fails.
 */
final class ProxyStart {
    private final ProxyBuilder builder;
    private final ProxyConfiguration configuration;

    ProxyStart(ProxyBuilder builder, ProxyConfiguration configuration) {
        this.builder = builder;
        this.configuration = configuration;
    }

    PgMuxProxy start() {
        ProxySettings s = configuration.settings();
        AutoDatabases autoDatabases = new AutoDatabases(configuration.resolved(),
                s.get(ProxySetting.AUTODB_IDLE_TIMEOUT));
        Transport transport = Transport.create(s.<Integer>get(ProxySetting.THREADS),
                s.<TransportKind>get(ProxySetting.TRANSPORT), TcpOptions.of(s));
        SettingsApply.FromFiles files;
        PrometheusEndpoint metrics;
        try {
            files = SettingsApply.FromFiles.of(configuration, transport);
            metrics = startMetrics(s.get(ProxySetting.METRICS_LISTEN));
        } catch (RuntimeException e) {
            transport.shutdown();
            throw e;
        }
        MetricsTrackerFactory trackers = metrics != null ? metrics.trackers() : builder.metricsTrackerFactory();
        PreparedStatementLimit maxPrepared = new PreparedStatementLimit(s.get(ProxySetting.MAX_PREPARED_STATEMENTS));
        ConnectionLog connectionLog = new ConnectionLog();
        ServerConnectors connectors = new ServerConnectors(transport, maxPrepared, new QueriedUsers(), autoDatabases,
                connectionLog);
        AtomicReference<PoolRegistry<ServerConnection>> self = new AtomicReference<>();
        ProxyFleets fleets = new ProxyFleets(autoDatabases::entryName, connectors::of,
                transport.blockingWork());
        // PgBouncer numbers clients and servers from one counter (SHOW CLIENTS' and SHOW SERVERS' id)
        AtomicLong socketIds = new AtomicLong();
        PoolRegistry<ServerConnection> registry = PoolRegistry.<ServerConnection>builder()
                .config(s.pool())
                .overrides(configuration.overrides())
                // an auto-database's pools take the settings of the * entry, a read-routing host's its entry's
                .configs(key -> self.get().overrides().apply(self.get().config(),
                        autoDatabases.entryName(ReplicaHosts.settingsOf(connectors.targets(), key.database())),
                        key.user()))
                .connectors(connectors::create)
                .janitorPeriod(builder.janitorPeriod() != null ? builder.janitorPeriod()
                        : JanitorPeriod.of(s, configuration.overrides(),
                                configuration.userLimits().values()))
                .statsPeriod(s.get(ProxySetting.STATS_PERIOD))
                .metricsTrackerFactory(trackers)
                .registerMbeans(builder.registerMbeans())
                .serverIds(socketIds::incrementAndGet)
                .listener(fleets)
                .build();
        self.set(registry);
        registry.addJanitorChore(() -> autoDatabases.dropIdle(registry, connectors::forget));
        CancelSender cancelSender = new CancelSender(transport, s.get(ProxySetting.CANCEL_WAIT_TIMEOUT), connectionLog);
        ProxyContext context = new ProxyContext(registry, autoDatabases, cancelSender, maxPrepared,
                socketIds::incrementAndGet, transport.blockingWork());
        context.peerPools(new PeerPools(transport, cancelSender));
        registry.addJanitorChore(context.idlePools());
        registry.addJanitorChore(context.clientTimeouts());
        context.connectionLog(connectionLog);
        StatsLog statsLog = new StatsLog(s.get(ProxySetting.LOG_STATS));
        registry.addStatsPeriodListener(statsLog);
        AtomicReference<PgMuxProxy> started = new AtomicReference<>();
        int port = s.get(ProxySetting.LISTEN_PORT);
        AdminConsole console = new AdminConsole(context, configuration.listed(), s,
                () -> started.get() == null ? port : started.get().port(),
                mode -> started.get().shutdown(mode),
                builder.reloadFrom() == null ? null : () -> started.get().reload(),
                (setting, value) -> started.get().set(setting, value), transport.dnsHosts());
        context.adminRoute(console);
        SettingsApply settings = new SettingsApply(configuration, registry, context, connectors, fleets, statsLog,
                transport, console, builder.reloadFrom(), builder.janitorPeriod());
        settings.start(files);
        registry.addJanitorChore(new AuthFileWatch(settings, transport.blockingWork()));
        FirstLoginWarmUp.run(builder.registerMbeans());
        ClientSockets clients = context.clientSockets();
        transport.readGate().clients(clients);
        Listeners listeners;
        try {
            listeners = Listeners.bind(transport, s.get(ProxySetting.LISTEN_ADDR), port,
                    s.get(ProxySetting.UNIX_SOCKET_DIR), s.get(ProxySetting.UNIX_SOCKET_MODE),
                    s.get(ProxySetting.UNIX_SOCKET_GROUP), new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            clients.accepted(ch);
                            transport.tuneAccepted(ch);
                            FrontendMessageDecoder decoder = new FrontendMessageDecoder(context.maxMessageLength());
                            ch.pipeline().addLast(new DirectTls(context), decoder);
                            decoder.serve(new ClientConnection(context, decoder));
                            transport.readGate().watchClient(ch);
                        }
                    });
        } catch (RuntimeException e) {
            registry.close();
            fleets.close();
            if (metrics != null) {
                metrics.close();
            }
            transport.shutdown();
            throw e;
        }
        settings.listening(listeners);
        context.connectionLog().unixPort(listeners.port());
        context.unixSocketOwnerUid(listeners.unixSocketOwnerUid());
        console.listening(listeners.channels(), transport.readGate());
        RunningProxy running = new RunningProxy(transport, registry, fleets, context, listeners, clients, metrics);
        PgMuxProxy proxy = new PgMuxProxy(running, console, settings,
                new ProxyShutdown(running, builder.drainTimeout()));
        started.set(proxy);
        return proxy;
    }

    /**
     * metrics_listen's endpoint, or null when it is off. Its libraries are looked for first, so that their
     * absence is a sentence rather than a NoClassDefFoundError.
     */
    private PrometheusEndpoint startMetrics(InetSocketAddress address) {
        if (address == null) {
            return null;
        }
        if (builder.metricsTrackerFactory() != null && builder.meterRegistry() == null) {
            throw new IllegalArgumentException("metrics_listen publishes pgmux's meters through Micrometer and"
                    + " cannot feed a metricsTrackerFactory of the application's: give a metricRegistry instead");
        }
        for (String name : new String[] {"io.micrometer.prometheusmetrics.PrometheusMeterRegistry",
                "io.prometheus.metrics.exporter.common.PrometheusScrapeHandler"}) {
            try {
                Class.forName(name, false, PgMuxProxy.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException("metrics_listen needs io.micrometer:micrometer-registry-prometheus"
                        + " and io.prometheus:prometheus-metrics-exporter-common on the class path (the"
                        + " runnable jar has them): " + name + " is missing");
            }
        }
        return PrometheusEndpoint.start(address, builder.meterRegistry());
    }
}
