package io.pgmux.proxy.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Set;

/**
 * The values of the proxy's own settings that can work, beyond what their type reads: a value outside is refused
 * with the reason, at the ini line or on the admin console's SET, rather than taken and found out later (a
 * max_packet_size of 1 that refuses every login, the console's too; a stats_period of 0 that logs without pause;
 * a logfile that is no file). PgBouncer 1.25 checks none of these but the admin console's name as auth_dbname.
 */
final class SettingRange {
    /** The largest peer_id: a cancel key carries it in two bytes (as server.PeerEntry.MAX_ID). */
    static final int MAX_PEER_ID = 0xFFFF;
    /** Below this, the messages of a login (a SCRAM exchange, a console's SET) no longer fit. */
    static final int MIN_PACKET_SIZE = 1024;
    /** File systems whose files are the kernel's, not data: a log written there writes into the kernel's state. */
    private static final Set<String> PSEUDO_FILE_SYSTEMS = Set.of("proc", "sysfs", "devtmpfs", "devpts", "cgroup",
            "cgroup2", "debugfs", "securityfs", "tracefs", "bpf");

    private SettingRange() {
    }

    /** @throws IllegalArgumentException naming the setting, the value and why it cannot work */
    static void check(ProxySetting setting, Object value) {
        switch (setting) {
            case MAX_PACKET_SIZE -> {
                if ((Integer) value < MIN_PACKET_SIZE) {
                    throw new IllegalArgumentException(setting.configName() + " must be " + MIN_PACKET_SIZE
                            + " or more, not " + value + ": a smaller limit refuses the messages of every login,"
                            + " the admin console's too");
                }
            }
            case STATS_PERIOD -> {
                if (((Duration) value).compareTo(Duration.ofSeconds(1)) < 0) {
                    throw new IllegalArgumentException(setting.configName() + " must be 1 second or more, not "
                            + setting.format(value) + ": it is how often the averages are computed and logged");
                }
            }
            case LISTEN_PORT -> {
                int port = (Integer) value;
                if (port < 0 || port > 65535) {
                    throw new IllegalArgumentException(setting.configName() + " must be 0 (a free port) to 65535, not "
                            + port);
                }
            }
            case PEER_ID -> {
                int id = (Integer) value;
                if (id < 0 || id > MAX_PEER_ID) {
                    throw new IllegalArgumentException(setting.configName() + " must be 0 (no peering) to "
                            + MAX_PEER_ID + ", not " + id + ": a cancel key carries it in two bytes");
                }
            }
            case SCRAM_ITERATIONS -> {
                if ((Integer) value < 1) {
                    throw new IllegalArgumentException(setting.configName() + " must be 1 or more, not " + value);
                }
            }
            case LOGFILE, PIDFILE -> writableFile(setting, (Path) value);
            case AUTH_DBNAME -> {
                // PgBouncer refuses it as a global setting; a database's own is refused client by client
                if ("pgbouncer".equals(value)) {
                    throw new IllegalArgumentException("cannot use the reserved \"pgbouncer\" database as an"
                            + " auth_dbname");
                }
            }
            default -> {
            }
        }
    }

    /** A file pgmux writes: a regular file, or one not made yet; never a directory, a device or a kernel file. */
    private static void writableFile(ProxySetting setting, Path file) {
        if (file == null) {
            return;
        }
        String what;
        try {
            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
            if (attributes.isDirectory()) {
                what = "a directory";
            } else if (!attributes.isRegularFile()) {
                what = "a device or other special file";
            } else if (PSEUDO_FILE_SYSTEMS.contains(Files.getFileStore(file).type())) {
                what = "a file of the kernel's " + Files.getFileStore(file).type() + " file system";
            } else {
                return;
            }
        } catch (NoSuchFileException e) {
            return;
        } catch (IOException e) {
            what = "a file that cannot be looked at (" + e.getMessage() + ")";
        }
        throw new IllegalArgumentException(setting.configName() + " must be a regular file or one not made yet, not "
                + file + ": it is " + what);
    }
}
