package io.pgmux.testing;

import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The server's log as the logging collector writes it, read over SQL ({@code pg_current_logfile},
 * {@code pg_read_binary_file}), so it works for any server with {@code logging_collector = on} that the
 * superuser can reach, local or not. Reads start at the position the log had when this object was made.
 *
 * <p>The collector writes asynchronously, so a read is synchronised with a marker: the fixture raises a
 * LOG message carrying a fresh id and reads until it appears. Every line some backend wrote before the
 * marker was raised is in the pipe ahead of it, hence in the file before it.
 */
public final class ServerLog {

    private static final Pattern AUTHORIZED =
            Pattern.compile("LOG:\\s+connection authorized: user=(\\S+) database=(\\S+)");
    private static final String MARKER = "pgmux-fixture-marker";
    private static final Duration MARKER_WAIT = Duration.ofSeconds(10);

    private final AdminConnection admin;
    private final String destination;
    private final String file;
    private final long start;

    private ServerLog(AdminConnection admin, String destination, String file, long start) {
        this.admin = admin;
        this.destination = destination;
        this.file = file;
        this.start = start;
    }

    /** The stderr log from now on, or {@code null} when the server has no collector-written stderr log. */
    static ServerLog fromNow(AdminConnection admin) {
        return fromNow(admin, "stderr");
    }

    /**
     * The log of {@code destination} ({@code stderr}, {@code csvlog} or {@code jsonlog}) from now on, or
     * {@code null} when the collector writes none.
     */
    static ServerLog fromNow(AdminConnection admin, String destination) {
        return admin.call("locate the server's " + destination + " log", connection -> {
            try (PreparedStatement statement = connection.prepareStatement(
                    "SELECT f, (pg_stat_file(f)).size FROM pg_current_logfile(?) AS f")) {
                statement.setString(1, destination);
                try (ResultSet row = statement.executeQuery()) {
                    row.next();
                    String file = row.getString(1);
                    return file == null ? null : new ServerLog(admin, destination, file, row.getLong(2));
                }
            }
        });
    }

    /** Counts "connection authorized" lines for the database, and for the user unless it is {@code null}. */
    long countAuthorizations(String database, String user) {
        String text = readThroughMarker();
        long count = 0;
        for (String line : text.split("\n")) {
            Matcher matcher = AUTHORIZED.matcher(line);
            if (matcher.find() && matcher.group(2).equals(database)
                    && (user == null || matcher.group(1).equals(user))) {
                count++;
            }
        }
        return count;
    }

    /**
     * Everything the server logged from when this object was made until now: the text up to a marker raised
     * by this call.
     */
    public String readThroughMarker() {
        String id = UUID.randomUUID().toString();
        // The id is a separate argument so the marker text is never in the statement itself, which
        // log_statement could log ahead of the message.
        admin.call("write a marker to the server log", connection -> {
            try (Statement statement = connection.createStatement()) {
                statement.execute("DO $$BEGIN RAISE LOG '" + MARKER + " %', '" + id + "'; END$$");
            }
            return null;
        });
        String marker = MARKER + " " + id;
        long deadline = System.nanoTime() + MARKER_WAIT.toNanos();
        while (true) {
            String text = read();
            int at = text.indexOf(marker);
            if (at >= 0) {
                return text.substring(0, at);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the server log " + file + " did not show a LOG message within "
                        + MARKER_WAIT.toSeconds() + " s; is log_min_messages above LOG?");
            }
            PgServer.pause(Duration.ofMillis(10));
        }
    }

    private String read() {
        return admin.call("read the server log", connection -> {
            try (PreparedStatement statement = connection.prepareStatement(
                    "SELECT pg_current_logfile(?), "
                            + "pg_read_binary_file(?, ?, greatest((pg_stat_file(?)).size - ?, 0))")) {
                statement.setString(1, destination);
                statement.setString(2, file);
                statement.setLong(3, start);
                statement.setString(4, file);
                statement.setLong(5, start);
                try (ResultSet row = statement.executeQuery()) {
                    row.next();
                    if (!file.equals(row.getString(1))) {
                        throw new IllegalStateException("the server log rotated from " + file + " to "
                                + row.getString(1) + "; counts from the log need a server that does not rotate it");
                    }
                    return new String(row.getBytes(2), StandardCharsets.UTF_8);
                }
            }
        });
    }
}
