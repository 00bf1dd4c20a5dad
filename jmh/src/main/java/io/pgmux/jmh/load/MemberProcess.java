package io.pgmux.jmh.load;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A {@link FleetMember} in a JVM of its own, started from this one's class path, and driven through its pipes. */
final class MemberProcess implements AutoCloseable {
    private final Process process;
    private final BufferedReader out;
    private final PrintWriter in;

    private MemberProcess(Process process) {
        this.process = process;
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        this.in = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
    }

    /** Starts the process; {@link #awaitReady()} waits for its pool. */
    static MemberProcess start(List<String> memberArgs) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // one GC thread and a small heap: four members share the cores with the server they measure
                "-XX:+UseSerialGC", "-Xmx256m",
                "-cp", System.getProperty("java.class.path"),
                FleetMember.class.getName()));
        command.addAll(memberArgs);
        return new MemberProcess(new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start());
    }

    void awaitReady() throws IOException {
        String line = out.readLine();
        if (!"ready".equals(line)) {
            throw new IOException("a fleet member ended before its pool ran a query; its errors are above");
        }
    }

    void busy() {
        in.println("busy");
    }

    /** Transactions and errors so far. */
    long[] count() throws IOException {
        in.println("count");
        String line = out.readLine();
        if (line == null || !line.startsWith("count ")) {
            throw new IOException("a fleet member did not answer count: " + line);
        }
        String[] f = line.split(" ");
        return new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])};
    }

    /** kill -9: the process ends at once, without closing its pool. */
    void kill() throws InterruptedException {
        process.destroyForcibly().waitFor();
    }

    /** Ends its input, on which it closes its pool (and leaves the fleet) and ends. */
    @Override
    public void close() throws IOException {
        in.close();
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
