package io.pgmux.proxy.standalone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runnable jar lets an idle process give unused heap back (G1's periodic collection and lower free ratios),
 * unless the java command line chose those flags itself. The flags are read from the running JVM with jcmd.
 */
class IdleMemoryIT {
    private static final Pattern FLAG = Pattern.compile("-XX:(\\w+)=(\\S+)");

    @TempDir
    Path dir;

    private Path ini() throws Exception {
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, "[databases]\napp = host=127.0.0.1 port=1\n[pgbouncer]\nlisten_addr = 127.0.0.1\n"
                + "listen_port = 0\nunix_socket_dir =\n");
        return ini;
    }

    /** The non-default flags of the process, as {@code jcmd <pid> VM.flags} lists them. */
    private static Map<String, String> flags(ProxyJar proxy) throws Exception {
        Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(proxy.pid()), "VM.flags").redirectErrorStream(true).start();
        String out = new String(jcmd.getInputStream().readAllBytes());
        assertTrue(jcmd.waitFor(60, TimeUnit.SECONDS), "jcmd did not end");
        assertEquals(0, jcmd.exitValue(), out);
        Map<String, String> flags = new HashMap<>();
        Matcher m = FLAG.matcher(out);
        while (m.find()) {
            flags.put(m.group(1), m.group(2));
        }
        return flags;
    }

    @Test
    void anIdleProcessCollectsPeriodicallyAndKeepsLittleOfItsHeapFree() throws Exception {
        try (ProxyJar proxy = ProxyJar.start(ini().toString())) {
            proxy.awaitStderr(Pattern.compile("LOG process up: "));
            Map<String, String> flags = flags(proxy);
            assertEquals("60000", flags.get("G1PeriodicGCInterval"), flags.toString());
            assertEquals("5", flags.get("MinHeapFreeRatio"), flags.toString());
            assertEquals("10", flags.get("MaxHeapFreeRatio"), flags.toString());
        }
    }

    @Test
    void freeRatiosFromTheJavaCommandLineAreKept() throws Exception {
        try (ProxyJar proxy = ProxyJar.start(List.of("-XX:MinHeapFreeRatio=30", "-XX:MaxHeapFreeRatio=50"),
                ini().toString())) {
            proxy.awaitStderr(Pattern.compile("LOG process up: "));
            Map<String, String> flags = flags(proxy);
            assertEquals("30", flags.get("MinHeapFreeRatio"), flags.toString());
            assertEquals("50", flags.get("MaxHeapFreeRatio"), flags.toString());
            assertEquals("60000", flags.get("G1PeriodicGCInterval"), flags.toString());
        }
    }

    @Test
    void anotherCollectorIsLeftAsItIs() throws Exception {
        try (ProxyJar proxy = ProxyJar.start(List.of("-XX:+UseSerialGC"), ini().toString())) {
            proxy.awaitStderr(Pattern.compile("LOG process up: "));
            Map<String, String> flags = flags(proxy);
            assertNull(flags.get("G1PeriodicGCInterval"), flags.toString());
            assertNull(flags.get("MaxHeapFreeRatio"), flags.toString());
        }
    }
}
