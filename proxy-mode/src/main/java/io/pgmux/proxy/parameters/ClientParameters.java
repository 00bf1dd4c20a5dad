package io.pgmux.proxy.parameters;

import io.pgmux.proxy.protocol.EncodableMessage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;

/**
 * The session settings one client expects on whatever server connection it gets: the reported ones
 * (client_encoding, DateStyle, TimeZone, …) as the server last reported them to this client, plus the settings
 * it asked for at startup or SET since that the pooler does not track from ParameterStatus (search_path,
 * extra_float_digits, {@code options -c}, default_transaction_read_only, custom {@code prefix.name} settings),
 * which are reset on a server connection that gets a client without them.
 * Before a server connection is used for this client, the differences are replayed with set_config, which reads a
 * value as the startup packet does: {@code SET search_path TO 'a,b'} would name one schema "a,b".
 */
public final class ClientParameters {
    /** The reported parameters PgBouncer keeps per client, in the order they are replayed. */
    private static final List<String> TRACKED = List.of("client_encoding", "DateStyle", "TimeZone", "IntervalStyle",
            "standard_conforming_strings", "application_name");
    private static final int APPLICATION_NAME = TRACKED.indexOf("application_name");
    /**
     * How many settings one client may have followed, so that no client can make the pooler keep (and replay) an
     * unbounded list; past it a new custom name keeps the client on its server, as a name the text does not show.
     */
    static final int MAX_FOLLOWED_SETTINGS = 1000;
    /** The startup parameter that carries command-line options ({@code -c name=value}). */
    public static final String OPTIONS = "options";
    private static final Set<String> NOT_SETTINGS = Set.of("user", "database", OPTIONS, "replication");
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_.]*");
    private static final String UNSUPPORTED_PARAMETER = "unsupported startup parameter: ";
    private static final String UNSUPPORTED_OPTION = "unsupported startup parameter in options: ";
    private static final String UNSUPPORTED_OPTIONS =
            "unsupported options startup parameter: only '-c config=val' and '--config=val' are allowed";
    private static final String[] NONE = new String[0];
    private static final String[] NONE_REPORTED = new String[TRACKED.size()];
    /**
     * The settings set in this session; and SET SESSION AUTHORIZATION and SET ROLE, which pg_settings hides: left
     * behind, the next client of the server would run as that role. Authorization comes first, so that a replay
     * sets it before the role. Null where the session has its login's authorization and no role.
     */
    private static final String SESSION_SETTINGS =
            "SELECT name, pg_catalog.current_setting(name) FROM pg_catalog.pg_settings WHERE source = 'session'";
    private static final String SESSION_ROLES =
            " UNION ALL SELECT 'session_authorization', NULLIF(session_user, pg_catalog.pg_get_userbyid("
                    + "(SELECT usesysid FROM pg_catalog.pg_stat_get_activity(pg_catalog.pg_backend_pid()))))"
                    + " UNION ALL SELECT 'role', NULLIF(pg_catalog.current_setting('role'), 'none')";

    // Arrays rather than maps: an idle client keeps these for as long as it is connected.
    /**
     * The values of the {@link #TRACKED} parameters, by index; null for those the server does not report. Never
     * changed in place, but replaced by a changed copy: clients of a pool told the same values at login share one
     * array (and one application_name string), which an idle client would otherwise keep a copy of.
     */
    private String[] reported = NONE_REPORTED;
    /**
     * The settings the pooler applies besides the {@link #TRACKED} ones, from the startup packet and the session's
     * SETs, as name, value, name, value…
     */
    private String[] unreported = NONE;
    /** The startup settings among {@link #unreported}, which a RESET returns to. */
    private String[] startup = NONE;
    /**
     * Custom settings the client's statements may have set since the settings were last read (see
     * {@link SettingStatements}), which the next read includes; null while there are none.
     */
    private List<String> watched;
    /** Custom settings the client's statements RESET since the settings were last read; null while none. */
    private List<String> resets;
    /** The client's statements ran RESET ALL or DISCARD ALL since the settings were last read. */
    private boolean resetAll;
    /** Everything the client sent, until {@link #welcome} has matched it to the server's spelling. */
    private Map<String, String> requested;
    /**
     * {@link #reported} and {@link #unreported} as one value, which a server remembers when it was found to have them;
     * shared by the clients whose settings are the same once one of them met a server another had matched. Null
     * after a change, until the next {@link #replayFor}.
     */
    private Expected expected;

    /** A client's expected settings at one moment, immutable. */
    private static final class Expected {
        private final String[] reported;
        private final String[] unreported;

        Expected(String[] reported, String[] unreported) {
            this.reported = reported;
            this.unreported = unreported;
        }

        boolean sameAs(Expected other) {
            return Arrays.equals(reported, other.reported) && Arrays.equals(unreported, other.unreported);
        }
    }

    private ClientParameters(Map<String, String> requested) {
        this.requested = requested;
    }

    /**
     * Reads the settings in a startup packet, including {@code options} ({@code -c name=value} and
     * {@code --name=value}), leaving out the names in {@code ignored} (lower case) there too, as PgBouncer does;
     * with {@code options} in {@code ignored}, a name in it that no server takes is left out instead of refused.
     *
     * @throws IllegalArgumentException with PgBouncer 1.25's text, for a malformed {@code options} value or a setting
     *     name that cannot be replayed
     */
    public static ClientParameters fromStartup(Map<String, String> startup, Set<String> ignored) {
        Map<String, String> requested = new LinkedHashMap<>();
        startup.forEach((name, value) -> {
            if (!NOT_SETTINGS.contains(name) && !name.startsWith("_pq_.")) {
                requested.put(checkName(name), value);
            }
        });
        String options = startup.get(OPTIONS);
        if (options != null) {
            parseOptions(options, ignored, requested);
        }
        return new ClientParameters(requested);
    }

    private static String checkName(String name) {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(UNSUPPORTED_PARAMETER + name);
        }
        return name;
    }

    /** PgBouncer 1.25's forms: {@code -c name=value}, {@code -cname=value} and {@code --name=value}. */
    private static void parseOptions(String options, Set<String> ignored, Map<String, String> into) {
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
                throw new IllegalArgumentException(UNSUPPORTED_OPTIONS);
            }
            int eq = assignment.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException(UNSUPPORTED_OPTIONS);
            }
            String name = assignment.substring(0, eq);
            if (ignored.contains(name.toLowerCase(Locale.ROOT))) {
                continue;
            }
            // PostgreSQL reads a dash in a name as an underscore (--search-path=x); the refusal shows it as sent
            if (!NAME.matcher(name.replace('-', '_')).matches()) {
                if (ignored.contains(OPTIONS)) {
                    continue;
                }
                throw new IllegalArgumentException(UNSUPPORTED_OPTION + name);
            }
            into.put(name.replace('-', '_'), assignment.substring(eq + 1));
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
     * asked for, matched case-insensitively to the server's names, in the server's spelling where a server of the
     * pool took the value before ({@code checked}, see {@link #checked}). Returns them in report order.
     */
    public Map<String, String> welcome(Map<String, String> serverParameters, Map<String, String> checked) {
        return welcome(serverParameters, checked, new AtomicReference<>());
    }

    /**
     * The same, sharing the values reported with the client welcomed before in {@code lastWelcomed} (its pool's, see
     * {@link WelcomeCache#lastWelcomed}) where they are the same, and leaving this client's there otherwise.
     */
    public Map<String, String> welcome(Map<String, String> serverParameters, Map<String, String> checked,
            AtomicReference<String[]> lastWelcomed) {
        Map<String, String> report = new LinkedHashMap<>(serverParameters);
        List<String> notReported = new ArrayList<>();
        requested.forEach((name, value) -> {
            String serverName = serverSpelling(serverParameters, name);
            if (serverName == null || !isTracked(serverName)) {
                // setting names are case-insensitive: one spelling, so that servers are compared by name; a
                // reported one the pooler does not track (default_transaction_read_only, is_superuser) is set too
                notReported.add(name.toLowerCase(Locale.ROOT));
                notReported.add(value);
            }
            if (serverName != null) {
                String serverValue = serverParameters.get(serverName);
                String taken = checked.get(serverName + '=' + value);
                // the pool's instance where the values agree: one string for all its clients
                report.put(serverName, taken != null ? taken : value.equals(serverValue) ? serverValue : value);
            }
        });
        unreported = notReported.toArray(NONE);
        startup = unreported;
        String[] values = new String[TRACKED.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = report.get(TRACKED.get(i));
        }
        String[] last = lastWelcomed.get();
        if (last != null && Arrays.equals(last, values)) {
            values = last;
        } else {
            lastWelcomed.set(values);
        }
        reported = values;
        requested = null;
        expected = null;
        return report;
    }

    /**
     * Whether a startup setting or reported parameter of this client's (once {@link #welcome}d) has not yet been
     * applied on a server of its pool with its value: {@code checked} holds the ones that were. Custom settings are
     * left to the first replay, where they may be refused too; application_name takes any value, so a login need
     * not wait for a server to try a name it has not seen.
     */
    public boolean needsCheck(Map<String, String> checked) {
        for (int i = 0; i < reported.length; i++) {
            if (reported[i] != null && i != APPLICATION_NAME && !checked.containsKey(TRACKED.get(i) + '=' + reported[i])) {
                return true;
            }
        }
        for (int i = 0; i < startup.length; i += 2) {
            if (startup[i].indexOf('.') < 0 && !checked.containsKey(startup[i] + '=' + startup[i + 1])) {
                return true;
            }
        }
        return false;
    }

    /**
     * The startup settings were applied on {@code server}, before {@link #replayed} adopts its spelling: adds them
     * to {@code checked} as asked ({@code name=value}), each with the value the server reports for it now, up to
     * {@code limit} entries. A later login asking for the same is welcomed with the server's spelling (DateStyle
     * {@code ISO, MDY} for the {@code ISO} pgjdbc sends) without trying it on a server again.
     */
    public void checked(Map<String, String> checked, ServerParameters server, int limit) {
        for (int i = 0; i < reported.length && checked.size() < limit; i++) {
            if (reported[i] != null && i != APPLICATION_NAME) {
                checked.put(TRACKED.get(i) + '=' + reported[i], spelling(server, TRACKED.get(i), reported[i]));
            }
        }
        for (int i = 0; i < startup.length && checked.size() < limit; i += 2) {
            if (startup[i].indexOf('.') < 0) {
                checked.put(startup[i] + '=' + startup[i + 1], spelling(server, startup[i], startup[i + 1]));
            }
        }
    }

    private static String spelling(ServerParameters server, String name, String asked) {
        String now = server.get(name);
        return now != null ? now : asked;
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

    /**
     * The value of the setting {@code lowerCaseName} (not one PgBouncer tracks) the pooler keeps for this client,
     * from its startup packet or a SET whose result was read; null when the client has not set it.
     */
    public String unreported(String lowerCaseName) {
        if (requested != null) {
            for (Map.Entry<String, String> e : requested.entrySet()) {
                if (e.getKey().equalsIgnoreCase(lowerCaseName)) {
                    return e.getValue();
                }
            }
            return null;
        }
        for (int i = 0; i < unreported.length; i += 2) {
            if (unreported[i].equals(lowerCaseName)) {
                return unreported[i + 1];
            }
        }
        return null;
    }

    /**
     * The client's application_name as the server last reported it to the client; before the welcome, the one it
     * asked for; null if neither.
     */
    public String applicationName() {
        Map<String, String> asked = requested;
        return asked != null ? asked.get("application_name") : reported[APPLICATION_NAME];
    }

    /** The server reported a new value while linked to this client: the client now expects it. */
    public void onParameterStatus(String name, String value) {
        int i = TRACKED.indexOf(name);
        if (i >= 0 && reported[i] != null && !reported[i].equals(value)) {
            String[] changed = reported.clone();
            changed[i] = value;
            reported = changed;
            expected = null;
        }
    }

    /**
     * The batch that gives {@code server} this client's settings, or null when it has them already: RESET for
     * what the pooler set there for another client and this one did not ask for, set_config for what differs.
     */
    public EncodableMessage replayFor(ServerParameters server) {
        // a server found to have these settings, its parameters unchanged since, is not walked again
        int version = server.version();
        Expected mine = expected();
        Object matched = server.matched(version);
        if (matched == mine) {
            return null;
        }
        if (matched instanceof Expected other && other.sameAs(mine)) {
            expected = other;
            return null;
        }
        List<String> namesAndValues = null;
        Map<String, String> serverUnreported = server.unreported();
        // asked at every acquire: a server whose session nobody SET has nothing to walk (nor an iterator to make)
        if (!serverUnreported.isEmpty()) {
            for (String name : serverUnreported.keySet()) {
                if (!asksFor(name)) {
                    namesAndValues = add(namesAndValues, name, null);
                }
            }
        }
        for (int i = 0; i < reported.length; i++) {
            String value = reported[i];
            String current = value == null ? null : server.get(TRACKED.get(i));
            if (current != null && !current.equals(value)) {
                namesAndValues = add(namesAndValues, TRACKED.get(i), value);
            }
        }
        for (int i = 0; i < unreported.length; i += 2) {
            if (!unreported[i + 1].equals(serverUnreported.get(unreported[i]))) {
                namesAndValues = add(namesAndValues, unreported[i], unreported[i + 1]);
            }
        }
        if (namesAndValues == null) {
            server.matched(mine, version);
            return null;
        }
        return new SettingsReplay(namesAndValues.toArray(NONE), server.majorVersion());
    }

    private Expected expected() {
        Expected e = expected;
        if (e == null) {
            e = new Expected(reported, unreported);
            expected = e;
        }
        return e;
    }

    private static List<String> add(List<String> namesAndValues, String name, String value) {
        List<String> list = namesAndValues == null ? new ArrayList<>() : namesAndValues;
        list.add(name);
        list.add(value);
        return list;
    }

    /** After the replay succeeded: record the server's unreported settings, adopt the server's spelling. */
    public void replayed(ServerParameters server) {
        recordUnreportedOn(server);
        String[] changed = null;
        for (int i = 0; i < reported.length; i++) {
            String canonical = reported[i] == null ? null : server.get(TRACKED.get(i));
            if (canonical != null && !canonical.equals(reported[i])) {
                if (changed == null) {
                    changed = reported.clone();
                }
                changed[i] = canonical;
            }
        }
        if (changed != null) {
            reported = changed;
            expected = null;
        }
    }

    /**
     * A statement of the client's may set the custom setting {@code name} (lower case, a checked name); false, and
     * nothing kept, when the client already has {@link #MAX_FOLLOWED_SETTINGS}: it cannot be followed.
     */
    public boolean watch(String name) {
        if (watched == null) {
            watched = new ArrayList<>(2);
        }
        if (!watched.contains(name) && !asksFor(name)) {
            if (watched.size() + unreported.length / 2 >= MAX_FOLLOWED_SETTINGS) {
                return false;
            }
            watched.add(name);
        }
        return true;
    }

    /** A statement of the client's RESETs the custom setting {@code name}, or every setting for null. */
    public void resetSeen(String name) {
        if (name == null) {
            resetAll = true;
            return;
        }
        if (resets == null) {
            resets = new ArrayList<>(2);
        }
        if (!resets.contains(name)) {
            resets.add(name);
        }
    }

    /**
     * Reads a server's session settings for {@link #captured}, after the {@link PoolerPrelude}: those set in this
     * session, and the custom ({@code prefix.name}) settings this client has, which PostgreSQL lists nowhere. The
     * settings the prelude overrides are read apart: it set them for its transaction, so pg_settings shows its values;
     * their rows give the value each would RESET to, which the prelude's row is compared with.
     */
    public EncodableMessage sessionSettingsQuery(int majorVersion) {
        StringBuilder sql = new StringBuilder(SESSION_SETTINGS);
        String[] overridden = PoolerPrelude.overridden(majorVersion);
        for (int i = 0; i < overridden.length; i++) {
            sql.append(i == 0 ? " AND name NOT IN ('" : ", '").append(overridden[i]).append('\'');
        }
        sql.append(')').append(SESSION_ROLES);
        for (String name : overridden) {
            sql.append(" UNION ALL SELECT '").append(name).append("', pg_catalog.set_config('").append(name)
                    .append("', NULL, true)");
        }
        for (int i = 0; i < unreported.length; i += 2) {
            if (unreported[i].indexOf('.') >= 0) {
                appendCustom(sql, unreported[i]);
            }
        }
        if (watched != null) {
            watched.forEach(name -> appendCustom(sql, name));
        }
        return PoolerPrelude.before(sql.toString(), majorVersion);
    }

    private static void appendCustom(StringBuilder sql, String name) {
        // names are checked identifiers (NAME)
        sql.append(" UNION ALL SELECT '").append(name).append("', pg_catalog.current_setting('").append(name)
                .append("', true)");
    }

    /**
     * The session settings read from {@code server} by {@link #sessionSettingsQuery} after this client changed some
     * (the prelude's row, then name and value per row): from now on the client asks for exactly these, besides the
     * reported ones that ParameterStatus keeps, and the server is known to have them; a custom setting without a
     * value is gone. A startup setting no longer set in the session was RESET, which on PostgreSQL returns it to
     * its startup value: the client asks for that again, which the server it gets next is given.
     * False, and nothing changed, for rows that cannot be read: the server's settings are then unknown.
     */
    public boolean captured(List<String[]> rows, ServerParameters server) {
        if (rows.isEmpty()) {
            return false;
        }
        String[] overridden = PoolerPrelude.overridden(server.majorVersion());
        String[] prelude = rows.get(0);
        if (prelude.length != overridden.length * 2 + 1) {
            return false;
        }
        List<String> settings = new ArrayList<>(rows.size() * 2);
        for (String[] row : rows.subList(1, rows.size())) {
            if (row.length != 2 || row[0] == null || !NAME.matcher(row[0]).matches()) {
                return false;
            }
            String name = row[0].toLowerCase(Locale.ROOT);
            String value = row[1];
            int override = indexOf(overridden, name);
            if (override >= 0) {
                // the row gives the value RESET would give; the session's own is in the prelude's row
                value = prelude[2 * override] == null || prelude[2 * override].equals(value) ? null
                        : prelude[2 * override];
            }
            if (value != null && !isTracked(name) && !settings.contains(name)) {
                settings.add(name);
                settings.add(value);
            }
        }
        Map<String, String> serverUnreported = server.unreported();
        serverUnreported.clear();
        for (int i = 0; i < settings.size(); i += 2) {
            serverUnreported.put(settings.get(i), settings.get(i + 1));
        }
        for (int i = 0; i < startup.length; i += 2) {
            String name = startup[i];
            if (!serverUnreported.containsKey(name)) {
                settings.add(name);
                settings.add(startup[i + 1]);
            } else if (name.indexOf('.') > 0 && serverUnreported.get(name).isEmpty()
                    && (resetAll || resets != null && resets.contains(name))) {
                // a custom setting RESET reads as empty: PostgreSQL lists nowhere that it was reset, the text did
                for (int j = 0; j < settings.size(); j += 2) {
                    if (settings.get(j).equals(name)) {
                        settings.set(j + 1, startup[i + 1]);
                    }
                }
            }
        }
        server.changed();
        unreported = settings.toArray(NONE);
        expected = null;
        watched = null;
        resets = null;
        resetAll = false;
        return true;
    }

    private static int indexOf(String[] names, String name) {
        for (int i = 0; i < names.length; i++) {
            if (names[i].equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /** {@code server} now has exactly this client's unreported settings. */
    private void recordUnreportedOn(ServerParameters server) {
        Map<String, String> serverUnreported = server.unreported();
        serverUnreported.keySet().removeIf(name -> !asksFor(name));
        for (int i = 0; i < unreported.length; i += 2) {
            serverUnreported.put(unreported[i], unreported[i + 1]);
        }
        server.changed();
    }

    private static boolean isTracked(String lowerCaseName) {
        for (String tracked : TRACKED) {
            if (tracked.equalsIgnoreCase(lowerCaseName)) {
                return true;
            }
        }
        return false;
    }

    private boolean asksFor(String name) {
        for (int i = 0; i < unreported.length; i += 2) {
            if (unreported[i].equals(name)) {
                return true;
            }
        }
        return false;
    }
}
