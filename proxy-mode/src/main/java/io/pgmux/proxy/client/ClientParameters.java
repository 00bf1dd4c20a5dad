package io.pgmux.proxy.client;

import io.pgmux.proxy.server.ServerConnection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The session settings one client expects on whatever server connection it gets: the reported ones
 * (client_encoding, DateStyle, TimeZone, …) as the server last reported them to this client, plus the settings
 * it asked for at startup that the server never reports (search_path, extra_float_digits, {@code options -c}),
 * which are reset on a server connection that gets a client without them.
 * Before a server connection is used for this client, the differences are replayed with set_config, which reads a
 * value as the startup packet does: {@code SET search_path TO 'a,b'} would name one schema "a,b".
 */
final class ClientParameters {
    /** The reported parameters PgBouncer keeps per client. */
    static final Set<String> TRACKED = Set.of("client_encoding", "DateStyle", "TimeZone", "IntervalStyle",
            "standard_conforming_strings", "application_name");
    private static final Set<String> NOT_SETTINGS = Set.of("user", "database", "options", "replication");
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_.]*");

    /** Tracked reported parameters, by the server's spelling. */
    private final Map<String, String> reported = new LinkedHashMap<>();
    /** Startup settings the server does not report. */
    private final Map<String, String> unreported = new LinkedHashMap<>();
    /** Everything the client sent, before the server's spelling is known. */
    private final Map<String, String> requested;

    private ClientParameters(Map<String, String> requested) {
        this.requested = requested;
    }

    /**
     * Reads the settings in a startup packet, including {@code options} ({@code -c name=value} and
     * {@code --name=value}).
     *
     * @throws IllegalArgumentException for a malformed {@code options} value or setting name
     */
    static ClientParameters fromStartup(Map<String, String> startup) {
        Map<String, String> requested = new LinkedHashMap<>();
        startup.forEach((name, value) -> {
            if (!NOT_SETTINGS.contains(name) && !name.startsWith("_pq_.")) {
                requested.put(checkName(name), value);
            }
        });
        String options = startup.get("options");
        if (options != null) {
            parseOptions(options, requested);
        }
        return new ClientParameters(requested);
    }

    private static String checkName(String name) {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("invalid setting name \"" + name + "\"");
        }
        return name;
    }

    private static void parseOptions(String options, Map<String, String> into) {
        List<String> words = splitOptions(options);
        for (int i = 0; i < words.size(); i++) {
            String word = words.get(i);
            String assignment;
            if (word.equals("-c") && i + 1 < words.size()) {
                assignment = words.get(++i);
            } else if (word.startsWith("-c")) {
                assignment = word.substring(2);
            } else if (word.startsWith("--")) {
                assignment = word.substring(2);
            } else {
                throw new IllegalArgumentException("unsupported startup option \"" + word + "\"");
            }
            int eq = assignment.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("invalid startup option \"" + assignment + "\"");
            }
            into.put(checkName(assignment.substring(0, eq).replace('-', '_')), assignment.substring(eq + 1));
        }
    }

    /** PostgreSQL's pg_split_opts: whitespace separates, a backslash escapes the next character. */
    private static List<String> splitOptions(String options) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        for (int i = 0; i < options.length(); i++) {
            char c = options.charAt(i);
            if (Character.isWhitespace(c)) {
                if (word.length() > 0) {
                    words.add(word.toString());
                    word.setLength(0);
                }
            } else if (c == '\\' && i + 1 < options.length()) {
                word.append(options.charAt(++i));
            } else {
                word.append(c);
            }
        }
        if (word.length() > 0) {
            words.add(word.toString());
        }
        return words;
    }

    /**
     * Settles the values reported to the client at login: the server's parameters overridden by what the client
     * asked for, matched case-insensitively to the server's names. Returns them in report order.
     */
    Map<String, String> welcome(Map<String, String> serverParameters) {
        Map<String, String> report = new LinkedHashMap<>(serverParameters);
        requested.forEach((name, value) -> {
            String serverName = serverSpelling(serverParameters, name);
            if (serverName != null) {
                report.put(serverName, value);
            } else {
                unreported.put(name, value);
            }
        });
        for (String name : TRACKED) {
            String value = report.get(name);
            if (value != null) {
                reported.put(name, value);
            }
        }
        return report;
    }

    private static String serverSpelling(Map<String, String> serverParameters, String name) {
        if (serverParameters.containsKey(name)) {
            return name;
        }
        for (String candidate : serverParameters.keySet()) {
            if (candidate.equalsIgnoreCase(name)) {
                return candidate;
            }
        }
        return null;
    }

    /** The server reported a new value while linked to this client: the client now expects it. */
    void onParameterStatus(String name, String value) {
        if (reported.containsKey(name)) {
            reported.put(name, value);
        }
    }

    /** The query that gives {@code server} this client's settings, or null when it has them already. */
    String replayFor(ServerConnection server) {
        StringBuilder sql = null;
        Map<String, String> serverReported = server.parameters();
        for (Map.Entry<String, String> e : reported.entrySet()) {
            String current = serverReported.get(e.getKey());
            if (current != null && !current.equals(e.getValue())) {
                sql = appendSet(sql, e.getKey(), e.getValue());
            }
        }
        Map<String, String> serverUnreported = server.unreportedSettings();
        for (Map.Entry<String, String> e : unreported.entrySet()) {
            if (!e.getValue().equals(serverUnreported.get(e.getKey()))) {
                sql = appendSet(sql, e.getKey(), e.getValue());
            }
        }
        // what an earlier client of this server asked for and this one did not goes back to the server's default
        StringBuilder resets = null;
        for (String name : serverUnreported.keySet()) {
            if (!unreported.containsKey(name)) {
                resets = (resets == null ? new StringBuilder(64) : resets).append("RESET ").append(name).append(';');
            }
        }
        if (resets != null) {
            return sql == null ? resets.toString() : resets.append(sql).toString();
        }
        return sql == null ? null : sql.toString();
    }

    /** After the replay succeeded: remember the unreported settings on the server, adopt the server's spelling. */
    void replayed(ServerConnection server) {
        server.unreportedSettings().keySet().retainAll(unreported.keySet());
        server.unreportedSettings().putAll(unreported);
        Map<String, String> serverReported = server.parameters();
        for (Map.Entry<String, String> e : reported.entrySet()) {
            String canonical = serverReported.get(e.getKey());
            if (canonical != null) {
                e.setValue(canonical);
            }
        }
    }

    private static StringBuilder appendSet(StringBuilder sql, String name, String value) {
        StringBuilder out = sql == null ? new StringBuilder(64).append("SELECT ") : sql.append(", ");
        // names are checked identifiers (NAME); only the value needs quoting
        out.append("pg_catalog.set_config('").append(name).append("', '").append(value.replace("'", "''"))
                .append("', false)");
        return out;
    }
}
