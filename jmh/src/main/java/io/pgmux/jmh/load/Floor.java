package io.pgmux.jmh.load;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Set;

/** A minimal transaction pooler the proxy is measured against: {@link NettyFloor}, {@link SocketFloor}. */
interface Floor extends AutoCloseable {
    /** Printed with the port once a floor started from its command line takes clients. */
    String READY = "listening ";

    /** The port it takes clients on. */
    int port();

    @Override
    void close();

    /** How a floor starts: logs in its servers, then listens on {@code port} (0 for any free one). */
    interface Start {
        Floor start(int port, String serverHost, int serverPort, String database, String user, String password,
                int poolSize) throws IOException, InterruptedException;
    }

    /**
     * The command line both floors take ({@code --port --server HOST:PORT --database --user --password
     * [--pool-size 20] [--seconds N]}): starts one, prints {@link #READY} and its port, and runs until killed or for
     * {@code --seconds}.
     */
    static void run(String[] args, int defaultPort, Start floor) throws Exception {
        LoadOptions o = LoadOptions.parse(args, Set.of("port", "server", "database", "user", "password",
                "pool-size", "seconds"));
        String server = o.string("server", "127.0.0.1:5432");
        int colon = server.lastIndexOf(':');
        if (colon < 1) {
            throw new IllegalArgumentException("--server must be HOST:PORT, not " + server);
        }
        try (Floor started = floor.start(o.integer("port", defaultPort), server.substring(0, colon),
                Integer.parseInt(server.substring(colon + 1)), o.string("database", "postgres"),
                o.string("user", System.getenv("PGUSER")), o.string("password", System.getenv("PGPASSWORD")),
                o.integer("pool-size", 20))) {
            System.out.println(READY + started.port());
            int seconds = o.integer("seconds", 0);
            if (seconds > 0) {
                Thread.sleep(seconds * 1000L);
            } else {
                Thread.currentThread().join();
            }
        }
    }

    /**
     * What a floor answers every startup packet with: AuthenticationOk, the settings drivers look for, a
     * BackendKeyData and a ReadyForQuery.
     */
    static byte[] welcome() {
        ByteBuffer welcome = ByteBuffer.allocate(256);
        welcome.put((byte) 'R').putInt(8).putInt(0);
        setting(welcome, "server_version", "15.0");
        setting(welcome, "server_encoding", "UTF8");
        setting(welcome, "client_encoding", "UTF8");
        setting(welcome, "DateStyle", "ISO, MDY");
        setting(welcome, "integer_datetimes", "on");
        setting(welcome, "standard_conforming_strings", "on");
        welcome.put((byte) 'K').putInt(12).putInt(1).putInt(2);
        welcome.put((byte) 'Z').putInt(5).put((byte) 'I');
        byte[] bytes = new byte[welcome.position()];
        welcome.flip().get(bytes);
        return bytes;
    }

    private static void setting(ByteBuffer out, String name, String value) {
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        byte[] v = value.getBytes(StandardCharsets.UTF_8);
        out.put((byte) 'S').putInt(4 + n.length + 1 + v.length + 1).put(n).put((byte) 0).put(v).put((byte) 0);
    }
}
