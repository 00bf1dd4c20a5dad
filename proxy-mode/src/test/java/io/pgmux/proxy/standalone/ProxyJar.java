package io.pgmux.proxy.standalone;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The runnable jar, started as an operator starts it: {@code java -jar pgmux-proxy-<version>-all.jar [options]
 * pgbouncer.ini}, its stdout and stderr collected line by line.
 */
final class ProxyJar implements AutoCloseable {
    /** The signals the proxy answers, at their default disposition for env. */
    private static final String DEFAULT_SIGNALS = "--default-signal=HUP,INT,TERM";

    /** Generous: a bound on how long a JVM may take to start or stop on a busy machine, never a race's judge. */
    private static final long TIMEOUT_SECONDS = 60;
    private static final Pattern LISTENING = Pattern.compile("LOG listening on (?:\\[[^\\]]+\\]|[^:\\[]+):(\\d+)$");

    private final Process process;
    private final List<String> stdout = new ArrayList<>();
    private final List<String> stderr = new ArrayList<>();
    private final Thread[] readers;

    private ProxyJar(Process process) {
        this.process = process;
        this.readers = new Thread[] {collect(process.getInputStream(), stdout), collect(process.getErrorStream(),
                stderr)};
    }

    /** The jar {@code package} built; failsafe names it. */
    static Path jar() {
        String name = System.getProperty("pgmux.proxy.jar");
        assertTrue(name != null, "system property pgmux.proxy.jar is not set: run this test with failsafe (mvn verify)");
        Path jar = Path.of(name);
        assertTrue(Files.isRegularFile(jar), jar + " is missing: it is built in the package phase");
        return jar;
    }

    static ProxyJar start(String... arguments) throws IOException {
        return start(List.of(), arguments);
    }

    /**
     * With {@code jvmOptions} ({@code -Dname=value}) before {@code -jar}, and the signals the proxy answers at
     * their default disposition, whatever the test's own process inherited (a build run under nohup).
     */
    static ProxyJar start(List<String> jvmOptions, String... arguments) throws IOException {
        return start(List.of(DEFAULT_SIGNALS), jvmOptions, arguments);
    }

    /**
     * Started with {@code signals} (names, comma-separated) ignored, as nohup or a script's {@code &} leave them, and
     * the others the proxy answers at their default, whatever the test's own process inherited.
     */
    static ProxyJar startIgnoring(String signals, String... arguments) throws IOException {
        // env applies the last disposition given for a signal: those ignored here win over the defaults
        return start(List.of(DEFAULT_SIGNALS, "--ignore-signal=" + signals), List.of(), arguments);
    }

    private static ProxyJar start(List<String> dispositions, List<String> jvmOptions, String... arguments)
            throws IOException {
        // env sets the dispositions and executes java in its place: the process, and its pid, are the JVM's
        List<String> command = new ArrayList<>(List.of("env"));
        command.addAll(dispositions);
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", jar().toString()));
        command.addAll(List.of(arguments));
        return new ProxyJar(new ProcessBuilder(command).start());
    }

    /**
     * The distribution's launcher, {@code bin/pgmux arguments…}, started through {@code env envOptions…} (e.g.
     * {@code --ignore-signal=INT}) with {@code environment} added to this process's.
     */
    static ProxyJar launch(Path launcher, Map<String, String> environment, List<String> envOptions,
            String... arguments) throws IOException {
        List<String> command = new ArrayList<>(List.of("env"));
        command.addAll(envOptions);
        command.add(launcher.toString());
        command.addAll(List.of(arguments));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().putAll(environment);
        return new ProxyJar(builder.start());
    }

    /** Runs the jar to its end: its exit status and output. */
    static ProxyJar run(String... arguments) throws IOException, InterruptedException {
        ProxyJar jar = start(arguments);
        jar.awaitExit();
        return jar;
    }

    Process process() {
        return process;
    }

    long pid() {
        return process.pid();
    }

    /** Once started: the port it reports listening on. */
    int awaitPort() throws InterruptedException {
        return Integer.parseInt(awaitStderr(LISTENING).group(1));
    }

    /** The first stderr line matching {@code pattern}, waiting for it while the process runs. */
    Matcher awaitStderr(Pattern pattern) throws InterruptedException {
        return await(stderr, pattern);
    }

    Matcher awaitStdout(Pattern pattern) throws InterruptedException {
        return await(stdout, pattern);
    }

    private Matcher await(List<String> lines, Pattern pattern) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        synchronized (lines) {
            for (int seen = 0; ; ) {
                for (; seen < lines.size(); seen++) {
                    Matcher m = pattern.matcher(lines.get(seen));
                    if (m.find()) {
                        return m;
                    }
                }
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                boolean ended = !process.isAlive() && !readers[0].isAlive() && !readers[1].isAlive();
                if (left <= 0 || ended) {
                    fail("no line matching " + pattern + (ended ? " before the process ended" : " in time")
                            + "\nstdout:\n" + String.join("\n", stdout()) + "\nstderr:\n"
                            + String.join("\n", stderr()));
                }
                lines.wait(Math.min(left, 200));
            }
        }
    }

    /** Sends a signal by name (HUP, INT, TERM, QUIT, USR1, USR2), as {@code kill -NAME pid} does. */
    void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, String.valueOf(process.pid())).inheritIO().start();
        assertTrue(kill.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS) && kill.exitValue() == 0, "kill -" + name
                + " failed");
    }

    /** Waits for the process to end; its exit status. */
    int awaitExit() throws InterruptedException {
        if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            fail("the proxy did not exit\nstderr:\n" + String.join("\n", stderr()));
        }
        for (Thread reader : readers) {
            reader.join(TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS));
        }
        return process.exitValue();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    List<String> stdout() {
        synchronized (stdout) {
            return List.copyOf(stdout);
        }
    }

    List<String> stderr() {
        synchronized (stderr) {
            return List.copyOf(stderr);
        }
    }

    @Override
    public void close() throws InterruptedException {
        // a launcher's JVM too
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        if (process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
    }

    private static Thread collect(InputStream stream, List<String> lines) {
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    synchronized (lines) {
                        lines.add(line);
                        lines.notifyAll();
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            synchronized (lines) {
                lines.notifyAll();
            }
        }, "proxy-output");
        reader.setDaemon(true);
        reader.start();
        return reader;
    }
}
