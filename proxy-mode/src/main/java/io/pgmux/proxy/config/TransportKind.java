package io.pgmux.proxy.config;

import java.util.Locale;

/**
 * pgmux's transport setting: which of Netty's transports runs the event loops. epoll and io_uring are Linux's
 * (x86_64 here) and have the Unix socket and the Linux-only TCP options; NIO is the JDK's, anywhere.
 */
public enum TransportKind {
    EPOLL("epoll"),
    /** Linux 5.14 or later with io_uring allowed (a container's seccomp profile may forbid it). */
    IO_URING("io_uring"),
    NIO("nio");

    private final String configName;

    TransportKind(String configName) {
        this.configName = configName;
    }

    /** @throws IllegalArgumentException naming the accepted values */
    public static TransportKind fromConfig(String value) {
        String name = value.trim().toLowerCase(Locale.ROOT);
        for (TransportKind kind : values()) {
            if (kind.configName.equals(name)) {
                return kind;
            }
        }
        throw new IllegalArgumentException("transport must be epoll, io_uring or nio, not \"" + value + "\"");
    }

    public String configName() {
        return configName;
    }

    @Override
    public String toString() {
        return configName;
    }
}
