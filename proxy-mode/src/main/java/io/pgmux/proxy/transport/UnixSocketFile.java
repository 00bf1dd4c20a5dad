package io.pgmux.proxy.transport;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listening Unix socket's file, {@code <unix_socket_dir>/.s.PGSQL.<port>}, named as PostgreSQL names it so that
 * {@code psql -h DIR -p PORT} finds it, and its lock file {@code .s.PGSQL.<port>.lock}. PgBouncer refuses to start
 * when the lock file exists (a PostgreSQL server owns the port there) and removes a socket file left behind; pgmux
 * also writes the lock itself, with its pid first as PostgreSQL does, so that a second pooler or a PostgreSQL on the
 * same directory and port refuses to start rather than take the socket over, and a lock whose process is gone is
 * stale, as is one whose pid now names a process that started after the lock was written (the pid was reused). Both
 * files are removed at shutdown.
 */
final class UnixSocketFile {
    private static final Logger log = LoggerFactory.getLogger(UnixSocketFile.class);
    private static final PosixFilePermission[] BITS = {
        PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_READ,
        PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
        PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_READ};

    private final Path socket;
    private final Path lock;

    private UnixSocketFile(Path socket, Path lock) {
        this.socket = socket;
        this.lock = lock;
    }

    /**
     * Takes the lock and clears a socket file left behind, before the socket is bound.
     *
     * @throws IllegalStateException when the directory is missing, or the port is in use there
     * @throws IOException when the lock cannot be written
     */
    static UnixSocketFile claim(Path directory, int port) throws IOException {
        if (!Files.isDirectory(directory)) {
            throw new IllegalStateException("unix_socket_dir " + directory + " is not a directory");
        }
        Path socket = directory.resolve(".s.PGSQL." + port);
        Path lock = directory.resolve(".s.PGSQL." + port + ".lock");
        takeLock(lock, port);
        UnixSocketFile file = new UnixSocketFile(socket, lock);
        try {
            if (Files.exists(socket)) {
                if (answers(socket)) {
                    throw new IllegalStateException("unix port " + port + " is in use: " + socket
                            + " accepts connections");
                }
                Files.delete(socket);
                log.info("removed the stale unix socket {}", socket);
            }
        } catch (IOException | RuntimeException e) {
            file.remove();
            throw e;
        }
        return file;
    }

    private static void takeLock(Path lock, int port) throws IOException {
        byte[] content = (ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII);
        try {
            Files.write(lock, content, StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE);
            return;
        } catch (FileAlreadyExistsException e) {
            long owner = lockOwner(lock);
            if (owner <= 0 || holds(owner, lock)) {
                throw new IllegalStateException("unix port " + port + " is in use: lock file " + lock + " exists"
                        + (owner > 0 ? " and process " + owner + " is running" : ""));
            }
        }
        log.info("removed the stale lock file {} of process {}", lock, lockOwner(lock));
        Files.deleteIfExists(lock);
        // a second pooler starting at the same moment may take it first: then this one refuses, as it should
        try {
            Files.write(lock, content, StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE);
        } catch (FileAlreadyExistsException e) {
            throw new IllegalStateException("unix port " + port + " is in use: lock file " + lock + " exists");
        }
    }

    /** The pid on the lock file's first line (PostgreSQL's layout too), or 0 when there is none. */
    private static long lockOwner(Path lock) throws IOException {
        try {
            String first = Files.readString(lock, StandardCharsets.US_ASCII).lines().findFirst().orElse("").strip();
            return Long.parseLong(first);
        } catch (NoSuchFileException | NumberFormatException e) {
            return 0;
        }
    }

    /**
     * Whether process {@code pid} still holds {@code lock}: it is alive and is not a later process given the same
     * pid, one that started more than a second after the lock was written (a start time is known to the second:
     * Linux counts it from a boot time in whole seconds).
     */
    private static boolean holds(long pid, Path lock) throws IOException {
        Optional<ProcessHandle> process = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
        if (process.isEmpty()) {
            return false;
        }
        Optional<Instant> started = process.get().info().startInstant();
        Instant written = Files.getLastModifiedTime(lock).toInstant();
        return started.isEmpty() || !started.get().isAfter(written.plusSeconds(1));
    }

    private static boolean answers(Path socket) {
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            return probe.connect(UnixDomainSocketAddress.of(socket));
        } catch (IOException e) {
            return false;
        }
    }

    Path socket() {
        return socket;
    }

    /**
     * unix_socket_mode and unix_socket_group, once the socket is bound.
     *
     * @param group a group name, or empty to keep the process's
     */
    void setModeAndGroup(int mode, String group) throws IOException {
        Set<PosixFilePermission> permissions = EnumSet.noneOf(PosixFilePermission.class);
        for (int bit = 0; bit < BITS.length; bit++) {
            if ((mode & (1 << bit)) != 0) {
                permissions.add(BITS[bit]);
            }
        }
        Files.setPosixFilePermissions(socket, permissions);
        if (!group.isEmpty()) {
            GroupPrincipal principal;
            try {
                principal = socket.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByGroupName(group);
            } catch (IOException e) {
                throw new IllegalStateException("unix_socket_group " + group + ": no such group", e);
            }
            Files.getFileAttributeView(socket, PosixFileAttributeView.class).setGroup(principal);
        }
    }

    /** The uid that owns the socket file: the process's own, which may use the admin console without a password. */
    int ownerUid() throws IOException {
        return (Integer) Files.getAttribute(socket, "unix:uid");
    }

    void remove() {
        try {
            Files.deleteIfExists(socket);
            Files.deleteIfExists(lock);
        } catch (IOException e) {
            log.warn("could not remove the unix socket {}: {}", socket, e.toString());
        }
    }
}
