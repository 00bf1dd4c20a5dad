package io.pgmux.proxy;

import io.pgmux.core.pool.PoolRegistry;
import io.pgmux.proxy.client.ProxyContext;
import io.pgmux.proxy.fleet.ProxyFleets;
import io.pgmux.proxy.metrics.PrometheusEndpoint;
import io.pgmux.proxy.server.ServerConnection;
import io.pgmux.proxy.transport.ClientSockets;
import io.pgmux.proxy.transport.Listeners;
import io.pgmux.proxy.transport.Transport;

/**
 * What a started proxy runs on, as {@link ProxyStart} made it.
 *
 * @param fleets the pools' fleet memberships
 * @param clients every client socket open, the admin console's too
 * @param metrics metrics_listen's endpoint; null when off
 */
record RunningProxy(Transport transport, PoolRegistry<ServerConnection> registry, ProxyFleets fleets,
        ProxyContext context,
        Listeners listeners, ClientSockets clients, PrometheusEndpoint metrics) {
}
