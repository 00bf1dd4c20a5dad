package io.pgmux.proxy.server;

import io.netty.util.NetUtil;
import io.pgmux.proxy.transport.Transport;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Turns a {@link ServerHost} into the address a channel connects to. A host name is looked up on the transport's
 * {@link io.pgmux.proxy.transport.BlockingWork}, never on an event loop, as the system resolver blocks; the JVM
 * caches answers ({@code networkaddress.cache.ttl}). Addresses and socket directories need no lookup.
 */
final class HostResolver {
    private HostResolver() {
    }

    /**
     * Completes with the address, or fails with an UnknownHostException naming the host, or a ConnectException
     * for a host left to unix_socket_dir when that is empty (PgBouncer's "unix socket dir not configured").
     */
    static CompletableFuture<SocketAddress> resolve(Transport transport, ServerHost host) {
        if (host.isUnixSocket()) {
            if (host.host().isEmpty()) {
                return CompletableFuture.failedFuture(new ConnectException("unix socket dir not configured"));
            }
            if (!host.isAbstract()) {
                return CompletableFuture.completedFuture(transport.unixSocketAddress(host.socketPath()));
            }
            try {
                return CompletableFuture.completedFuture(
                        transport.abstractSocketAddress(host.socketPath().substring(1)));
            } catch (UnsupportedOperationException e) {
                return CompletableFuture.failedFuture(new ConnectException(e.getMessage()));
            }
        }
        byte[] literal = NetUtil.createByteArrayFromIpAddressString(host.host());
        if (literal != null) {
            try {
                return CompletableFuture.completedFuture(
                        new InetSocketAddress(InetAddress.getByAddress(host.host(), literal), host.port()));
            } catch (UnknownHostException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        return CompletableFuture.supplyAsync(() -> {
            try {
                InetAddress[] addresses = InetAddress.getAllByName(host.host());
                transport.dnsHosts().looked(host.host(), addresses);
                return new InetSocketAddress(addresses[0], host.port());
            } catch (UnknownHostException e) {
                throw new CompletionException(new UnknownHostException("could not resolve host name \""
                        + host.host() + "\""));
            }
        }, transport.blockingWork());
    }
}
