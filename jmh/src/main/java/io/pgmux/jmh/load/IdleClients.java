package io.pgmux.jmh.load;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The client side of {@link IdleClientMemory}, in a process of its own so that none of its objects count as the
 * proxy's: opens {@code --clients} connections that log in and then stay idle, prints {@code logged in N} on
 * standard output, and closes them all when standard input ends.
 *
 * <pre>
 * java -cp benchmarks.jar io.pgmux.jmh.load.IdleClients --port P --database D --user U --password PW
 *      [--host 127.0.0.1] [--clients 5000] [--threads 4] [--driver raw|pgjdbc] [--query SQL]
 * </pre>
 *
 * {@code raw} logs in over a plain socket ({@link RawLogin}); {@code pgjdbc} opens pgjdbc connections, which
 * weigh far more in this process, send fewer settings at startup and set the others with a query after it.
 * {@code --query} is run once by each client before it idles.
 */
public final class IdleClients {
    static final String READY = "logged in ";
    private static final Set<String> OPTIONS = Set.of("host", "port", "database", "user", "password", "clients",
            "threads", "driver", "query");

    private IdleClients() {
    }

    public static void main(String[] args) throws Exception {
        LoadOptions o = LoadOptions.parse(args, OPTIONS);
        String host = o.string("host", "127.0.0.1");
        int port = o.integer("port", 6432);
        String database = o.string("database", "postgres");
        String user = o.string("user", "postgres");
        String password = o.string("password", "");
        int clients = o.integer("clients", 5000);
        int threads = o.integer("threads", 4);
        String driver = o.string("driver", "raw");
        String query = o.string("query", null);
        Opener opener = switch (driver) {
            case "raw" -> () -> {
                Socket s = RawLogin.login(host, port, database, user, password, query);
                return s::close;
            };
            case "pgjdbc" -> {
                String url = "jdbc:postgresql://" + host + ":" + port + "/" + database;
                Properties p = new Properties();
                p.setProperty("user", user);
                p.setProperty("password", password);
                yield () -> {
                    Connection c = DriverManager.getConnection(url, p);
                    if (query != null) {
                        try (Statement s = c.createStatement()) {
                            s.execute(query);
                        }
                    }
                    return c;
                };
            }
            default -> throw new IllegalArgumentException("--driver is raw or pgjdbc, not " + driver);
        };

        List<AutoCloseable> open = openAll(opener, clients, threads);
        System.out.println(READY + open.size());
        System.out.flush();
        InputStream stdin = System.in;
        while (stdin.read() >= 0) {
            // the parent closes our standard input when it has measured
        }
        for (AutoCloseable c : open) {
            try {
                c.close();
            } catch (Exception e) {
                // the other end may be gone already
            }
        }
    }

    /** One connection that logs in; returns how to close it. */
    @FunctionalInterface
    private interface Opener {
        AutoCloseable open() throws Exception;
    }

    private static List<AutoCloseable> openAll(Opener opener, int clients, int threads) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        AtomicInteger left = new AtomicInteger(clients);
        List<Future<List<AutoCloseable>>> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            workers.add(pool.submit(() -> {
                List<AutoCloseable> mine = new ArrayList<>();
                while (left.getAndDecrement() > 0) {
                    mine.add(opener.open());
                }
                return mine;
            }));
        }
        pool.shutdown();
        List<AutoCloseable> all = new ArrayList<>(clients);
        try {
            for (Future<List<AutoCloseable>> w : workers) {
                all.addAll(w.get());
            }
        } catch (ExecutionException e) {
            // the other workers stop at their next client; the process ends with what they opened
            left.set(0);
            throw new IOException("a client could not log in: " + e.getCause().getMessage(), e.getCause());
        }
        return all;
    }
}
