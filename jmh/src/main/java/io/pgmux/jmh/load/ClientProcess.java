package io.pgmux.jmh.load;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@link IdleClients} in a JVM of its own, started from this one's class path: its connections are open and
 * logged in once {@link #start} returns, and closed (the process gone) once {@link #close()} returns.
 */
final class ClientProcess implements AutoCloseable {
    private final Process process;

    private ClientProcess(Process process) {
        this.process = process;
    }

    /**
     * Starts the process and waits until every client has logged in.
     *
     * @param clientArgs {@link IdleClients}'s options
     * @throws IOException when the process ends before its clients are all logged in
     */
    static ClientProcess start(List<String> clientArgs) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // one GC thread: the clients share the cores with the proxy they measure
                "-XX:+UseSerialGC",
                "-cp", System.getProperty("java.class.path"),
                IdleClients.class.getName()));
        command.addAll(clientArgs);
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        ClientProcess clients = new ClientProcess(process);
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        if (line == null || !line.startsWith(IdleClients.READY)) {
            clients.close();
            throw new IOException("the client process ended before its clients logged in (exit code "
                    + process.exitValue() + "); its errors are above");
        }
        return clients;
    }

    /** Closes the process's standard input, on which it closes its connections and ends. */
    @Override
    public void close() throws IOException {
        process.getOutputStream().close();
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
