package io.pgmux.proxy;

import io.netty.util.ResourceLeakDetector;
import io.pgmux.proxy.config.ProxyConfigLoader;
import java.nio.file.Path;

/**
 * Runs the proxy standalone: {@code java io.pgmux.proxy.Main pgmux.ini}. Netty's buffer leak detection is off
 * unless {@code -Dio.netty.leakDetection.level} names a level: its default samples one buffer in 128 with a
 * stack trace, a cost on every relayed result that the test suites, which run it paranoid, make unnecessary.
 */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: java io.pgmux.proxy.Main <pgbouncer.ini-style config file>");
            System.exit(2);
        }
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
        PgMuxProxy proxy;
        try {
            proxy = ProxyConfigLoader.load(Path.of(args[0])).start();
        } catch (RuntimeException e) {
            System.err.println("pgmux: " + e.getMessage());
            System.exit(1);
            return;
        }
        System.out.println("pgmux proxy listening on " + proxy.host() + ":" + proxy.port()
                + (proxy.isEpoll() ? " (epoll)" : " (nio)"));
        Runtime.getRuntime().addShutdownHook(new Thread(proxy::close, "pgmux-shutdown"));
        // returns on SIGTERM/SIGINT (the hook closes the proxy) and on the admin console's SHUTDOWN
        proxy.closeFuture().toCompletableFuture().join();
    }
}
