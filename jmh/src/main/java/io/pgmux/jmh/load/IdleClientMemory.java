package io.pgmux.jmh.load;

import com.sun.management.UnixOperatingSystemMXBean;
import io.pgmux.core.config.PoolMode;
import io.pgmux.proxy.PgMuxProxy;
import io.pgmux.proxy.auth.AuthType;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * What one idle client connection costs pgmux's proxy: the proxy runs embedded in this JVM in transaction mode
 * in front of a real PostgreSQL, {@code --clients} connections log in from another process ({@link IdleClients})
 * and stay idle after ReadyForQuery, and this JVM's heap (after full collections) and direct memory are read
 * before they connect, while they are idle, and after they have gone. A warm-up round of clients comes and goes
 * first, so that class loading, compiled code, the allocator's first chunks and the first server connection
 * are in the "before" reading. Prints a Markdown table; bytes per client are (idle − before) / clients.
 *
 * <pre>
 * ulimit -n 20000      # the proxy holds one socket per client, the client process another
 * java -cp benchmarks.jar io.pgmux.jmh.load.IdleClientMemory [--clients 5000] [--pool 20]
 *      [--auth scram-sha-256|md5|plain|trust] [--driver raw|pgjdbc] [--warmup 200] [--threads 0]
 *      [--login-threads 4] [--query SQL] [--url jdbc:postgresql://HOST:PORT/DB --user U --password P]
 * </pre>
 *
 * Without {@code --url} an embedded PostgreSQL is started for the run (Linux x86-64; elsewhere give a URL).
 * {@code --threads} is the proxy's event loops (0: the proxy's default). With {@code --query}, each client runs that
 * query once after logging in, so that what a client keeps after its first transaction is counted too.
 */
public final class IdleClientMemory {
    private static final Set<String> OPTIONS = Set.of("url", "user", "password", "clients", "pool", "auth", "driver",
            "warmup", "threads", "login-threads", "query");
    private static final String DATABASE = "bench";
    private static final String CLIENT_USER = "idle";
    private static final String CLIENT_PASSWORD = "idle-secret";

    private IdleClientMemory() {
    }

    public static void main(String[] args) throws Exception {
        LoadOptions o = LoadOptions.parse(args, OPTIONS);
        int clients = o.integer("clients", 5000);
        int pool = o.integer("pool", 20);
        AuthType auth = AuthType.fromConfig(o.string("auth", "scram-sha-256"));
        String driver = o.string("driver", "raw");
        int warmup = o.integer("warmup", 200);
        int threads = o.integer("threads", 0);
        int loginThreads = o.integer("login-threads", 4);
        String query = o.string("query", null);
        requireFileDescriptors(clients + warmup + 500);

        PrintStream out = System.out;
        try (BenchServer server = BenchServer.fromOptions(o)) {
            PgMuxProxy proxy = PgMuxProxy.builder()
                    .listen("127.0.0.1", 0)
                    .database(DATABASE, server.proxyUrl())
                    .poolMode(PoolMode.TRANSACTION)
                    .defaultPoolSize(pool)
                    .maxClientConn(clients + warmup + 100)
                    .authType(auth)
                    .users(Map.of(CLIENT_USER, CLIENT_PASSWORD))
                    .threads(threads)
                    .start();
            try {
                List<String> clientArgs = new ArrayList<>(List.of("--port", Integer.toString(proxy.port()),
                        "--database", DATABASE, "--user", CLIENT_USER, "--password", CLIENT_PASSWORD,
                        "--driver", driver, "--threads", Integer.toString(loginThreads)));
                if (query != null) {
                    clientArgs.addAll(List.of("--query", query));
                }
                if (warmup > 0) {
                    connectAndLeave(proxy, clientArgs, warmup);
                }
                MemoryReading before = MemoryReading.afterFullGc();
                MemoryReading idle;
                try (ClientProcess idleClients = ClientProcess.start(withClients(clientArgs, clients))) {
                    awaitClients(proxy, clients);
                    idle = MemoryReading.afterFullGc();
                }
                awaitClients(proxy, 0);
                MemoryReading gone = MemoryReading.afterFullGc();

                String login = driver.equals("raw")
                        ? "raw login with " + RawLogin.startupSettings().keySet() + " at startup"
                        : driver + " " + Versions.pgjdbc();
                if (query != null) {
                    login += "; each ran " + query + " once";
                }
                out.printf(Locale.ROOT, "%d idle clients (%s; %s) of pgmux's proxy in transaction mode, pool %d,"
                                + " %s, %d event loops; %s; %d warm-up clients came and went before the first reading.%n",
                        clients, login, auth.configName(), pool, proxy.isEpoll() ? "epoll" : "NIO",
                        threads > 0 ? threads : Runtime.getRuntime().availableProcessors(), server.description(), warmup);
                out.printf(Locale.ROOT, "%s; heap -Xmx%d MB; load average at end %s.%n%n", Machine.describe(),
                        Runtime.getRuntime().maxMemory() >> 20, Machine.loadAverage());
                out.print(table(before, idle, gone, clients));
            } finally {
                proxy.close();
            }
        }
    }

    static ResultTable table(MemoryReading before, MemoryReading idle, MemoryReading gone, int clients) {
        ResultTable t = new ResultTable("", "heap used after GC", "direct (proxy's allocator)", "direct (all)");
        t.row("before", bytes(before.heapUsed()), bytes(before.allocatorDirect()), bytes(before.direct()));
        t.row(String.format(Locale.ROOT, "%,d idle clients", clients), bytes(idle.heapUsed()),
                bytes(idle.allocatorDirect()), bytes(idle.direct()));
        t.row("after they disconnected", bytes(gone.heapUsed()), bytes(gone.allocatorDirect()), bytes(gone.direct()));
        t.row("**per idle client**", perClient(idle.heapUsed() - before.heapUsed(), clients),
                perClient(idle.allocatorDirect() - before.allocatorDirect(), clients),
                perClient(idle.direct() - before.direct(), clients));
        return t;
    }

    private static String bytes(long n) {
        return n < 0 ? "–" : String.format(Locale.ROOT, "%,d B", n);
    }

    private static String perClient(long delta, int clients) {
        return String.format(Locale.ROOT, "**%,d B**", Math.round((double) delta / clients));
    }

    private static void connectAndLeave(PgMuxProxy proxy, List<String> clientArgs, int clients) throws Exception {
        try (ClientProcess warm = ClientProcess.start(withClients(clientArgs, clients))) {
            awaitClients(proxy, clients);
        }
        awaitClients(proxy, 0);
    }

    private static List<String> withClients(List<String> clientArgs, int clients) {
        List<String> args = new ArrayList<>(clientArgs);
        args.add("--clients");
        args.add(Integer.toString(clients));
        return args;
    }

    /** Waits until the proxy counts {@code expected} logged-in clients (closes reach it after the process ends). */
    private static void awaitClients(PgMuxProxy proxy, int expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (proxy.clientCount() != expected) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the proxy counts " + proxy.clientCount() + " clients, not "
                        + expected + ", after 60 s");
            }
            Thread.sleep(50);
        }
    }

    private static void requireFileDescriptors(long needed) {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof UnixOperatingSystemMXBean unix && unix.getMaxFileDescriptorCount() < needed) {
            throw new IllegalStateException("the open files limit is " + unix.getMaxFileDescriptorCount()
                    + ", " + needed + " are needed: raise it first (ulimit -n " + Math.max(needed, 20_000) + ")");
        }
    }
}
