package io.pgmux.proxy.server;

import java.nio.file.Path;
import java.time.Duration;

/**
 * pgmux's server_password_file or server_password_command, of a {@code [databases]} entry or of
 * {@code [pgbouncer]}: where the password of each new server login is read, as configured. {@link ServerPassword}
 * reads it.
 *
 * @param file      the file holding the password, or null
 * @param command   the shell command printing it, or null
 * @param cacheTime how long the command's output is used; null for server_password_command_cache_time
 */
public record ServerPasswordSource(Path file, String command, Duration cacheTime) {
    public static final String FILE_KEY = "server_password_file";
    public static final String COMMAND_KEY = "server_password_command";

    /**
     * The source the settings name, or null when they name none.
     *
     * @throws IllegalArgumentException for both a file and a command, or an empty command
     */
    public static ServerPasswordSource of(Path file, String command, Duration cacheTime) {
        boolean hasCommand = command != null && !command.isEmpty();
        if (file != null && hasCommand) {
            throw new IllegalArgumentException(FILE_KEY + " and " + COMMAND_KEY + " cannot be used together: each"
                    + " gives the password of every server login; keep one");
        }
        if (hasCommand && command.isBlank()) {
            throw new IllegalArgumentException(COMMAND_KEY + " is empty");
        }
        if (file == null && !hasCommand) {
            return null;
        }
        return new ServerPasswordSource(file, hasCommand ? command : null, cacheTime);
    }

    /** The key and its value, as a log line names them; the password itself never. */
    @Override
    public String toString() {
        return file != null ? FILE_KEY + " " + file : COMMAND_KEY + " '" + command + "'";
    }
}
