package io.pgmux.proxy.transport;

import io.netty.channel.ChannelOption;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.unix.UnixChannelOption;
import io.netty.channel.uring.IoUringChannelOption;
import io.pgmux.proxy.config.ProxySetting;
import io.pgmux.proxy.config.ProxySettings;
import io.pgmux.proxy.config.TransportKind;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * PgBouncer's socket settings: listen_backlog, so_reuseport and tcp_defer_accept on the TCP listeners, and
 * tcp_keepalive, tcp_keepcnt, tcp_keepidle, tcp_keepintvl, tcp_user_timeout and tcp_socket_buffer on every TCP
 * connection, the clients' and the servers' alike (PgBouncer's tune_socket). The Linux-only ones need the epoll or
 * io_uring transport: without either so_reuseport is refused, as PgBouncer refuses it where the OS lacks it, and the others are
 * named in a warning at startup; tcp_defer_accept's default, on, is Linux's only, so off elsewhere goes unsaid.
 *
 * @param deferAccept whether TCP_DEFER_ACCEPT is set, to {@link #DEFER_ACCEPT_SECONDS}
 * @param socketBuffer SO_SNDBUF and SO_RCVBUF in bytes; 0 keeps the OS's
 * @param keepCount TCP_KEEPCNT; 0 keeps the OS's (also for the next three)
 */
public record TcpOptions(int backlog, boolean reusePort, boolean deferAccept, int socketBuffer, boolean keepalive,
        int keepCount, int keepIdleSeconds, int keepIntervalSeconds, int userTimeoutMillis) {
    /**
     * What PgBouncer 1.25's pooler.c sets (its config.md says 45 seconds, its code 1): a client that connects and
     * sends nothing reaches accept(2), and client_login_timeout, after a second or two instead of 45.
     */
    public static final int DEFER_ACCEPT_SECONDS = 1;
    /** PgBouncer's defaults, for a transport made without settings. */
    public static final TcpOptions DEFAULTS = new TcpOptions(128, false, true, 0, true, 0, 0, 0, 0);

    public static TcpOptions of(ProxySettings s) {
        return new TcpOptions(s.get(ProxySetting.LISTEN_BACKLOG), s.get(ProxySetting.SO_REUSEPORT),
                s.get(ProxySetting.TCP_DEFER_ACCEPT), s.get(ProxySetting.TCP_SOCKET_BUFFER),
                s.get(ProxySetting.TCP_KEEPALIVE), s.get(ProxySetting.TCP_KEEPCNT), s.get(ProxySetting.TCP_KEEPIDLE),
                s.get(ProxySetting.TCP_KEEPINTVL), s.get(ProxySetting.TCP_USER_TIMEOUT));
    }

    /**
     * The settings these options set that the NIO transport cannot apply, by PgBouncer's name.
     *
     * @throws IllegalStateException for so_reuseport, which cannot be done without
     */
    List<String> notAppliedWithoutNative() {
        if (reusePort) {
            throw new IllegalStateException("so_reuseport = 1 needs Netty's epoll or io_uring transport (Linux"
                    + " x86_64), which could not be loaded here");
        }
        List<String> names = new ArrayList<>();
        if (keepCount > 0) {
            names.add(ProxySetting.TCP_KEEPCNT.configName());
        }
        if (keepIdleSeconds > 0) {
            names.add(ProxySetting.TCP_KEEPIDLE.configName());
        }
        if (keepIntervalSeconds > 0) {
            names.add(ProxySetting.TCP_KEEPINTVL.configName());
        }
        if (userTimeoutMillis > 0) {
            names.add(ProxySetting.TCP_USER_TIMEOUT.configName());
        }
        return names;
    }

    /** The options of a TCP listening socket. */
    Map<ChannelOption<?>, Object> listener(TransportKind kind) {
        Map<ChannelOption<?>, Object> options = new LinkedHashMap<>();
        options.put(ChannelOption.SO_BACKLOG, backlog);
        if (kind != TransportKind.NIO) {
            options.put(UnixChannelOption.SO_REUSEPORT, reusePort);
            options.put(kind == TransportKind.EPOLL ? EpollChannelOption.TCP_DEFER_ACCEPT
                    : IoUringChannelOption.TCP_DEFER_ACCEPT, deferAccept ? DEFER_ACCEPT_SECONDS : 0);
        }
        return options;
    }

    /** The options of each TCP connection, accepted or opened. */
    Map<ChannelOption<?>, Object> connection(TransportKind kind) {
        Map<ChannelOption<?>, Object> options = new LinkedHashMap<>();
        options.put(ChannelOption.TCP_NODELAY, true);
        options.put(ChannelOption.SO_KEEPALIVE, keepalive);
        if (socketBuffer > 0) {
            options.put(ChannelOption.SO_SNDBUF, socketBuffer);
            options.put(ChannelOption.SO_RCVBUF, socketBuffer);
        }
        if (kind == TransportKind.EPOLL) {
            putIfSet(options, EpollChannelOption.TCP_KEEPCNT, keepCount);
            putIfSet(options, EpollChannelOption.TCP_KEEPIDLE, keepIdleSeconds);
            putIfSet(options, EpollChannelOption.TCP_KEEPINTVL, keepIntervalSeconds);
            putIfSet(options, EpollChannelOption.TCP_USER_TIMEOUT, userTimeoutMillis);
        } else if (kind == TransportKind.IO_URING) {
            putIfSet(options, IoUringChannelOption.TCP_KEEPCNT, keepCount);
            putIfSet(options, IoUringChannelOption.TCP_KEEPIDLE, keepIdleSeconds);
            putIfSet(options, IoUringChannelOption.TCP_KEEPINTVL, keepIntervalSeconds);
            putIfSet(options, IoUringChannelOption.TCP_USER_TIMEOUT, userTimeoutMillis);
        }
        return options;
    }

    private static void putIfSet(Map<ChannelOption<?>, Object> options, ChannelOption<Integer> option, int value) {
        if (value > 0) {
            options.put(option, value);
        }
    }
}
