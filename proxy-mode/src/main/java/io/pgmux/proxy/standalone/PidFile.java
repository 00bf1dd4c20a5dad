package io.pgmux.proxy.standalone;

import io.pgmux.proxy.log.ProcessId;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * PgBouncer's pidfile: refused when it names a process that is still running (another pooler on the same
 * configuration), replaced when stale, and removed at a clean exit.
 */
public final class PidFile {
    private final Path path;

    private PidFile(Path path) {
        this.path = path;
    }

    /**
     * Writes this process's pid ({@link ProcessId}: the launcher's, when it started the JVM) to {@code path}.
     *
     * @throws IllegalStateException when the file names a running process
     * @throws IOException when the file cannot be read or written
     */
    public static PidFile write(Path path) throws IOException {
        try {
            String recorded = Files.readString(path, StandardCharsets.US_ASCII).strip();
            long pid = Long.parseLong(recorded);
            if (pid != ProcessId.pid() && pid != ProcessHandle.current().pid() && ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
                    .isPresent()) {
                throw new IllegalStateException("pidfile " + path + " exists and process " + pid
                        + " is running: another pooler with this configuration?");
            }
        } catch (NoSuchFileException | NumberFormatException e) {
            // no pooler recorded there
        }
        Files.writeString(path, ProcessId.pid() + "\n", StandardCharsets.US_ASCII);
        return new PidFile(path);
    }

    public Path path() {
        return path;
    }

    public void remove() {
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            ProcessLog.write(ProcessLog.Level.WARNING, "could not remove pidfile " + path + ": " + e, null);
        }
    }
}
