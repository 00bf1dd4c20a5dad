package io.pgmux.proxy.churn;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the log says about connections: one entry per session seen, joined by process id from its
 * "connection received", "connection authorized" and "disconnection" lines, and counts of the lines read.
 */
final class ChurnStats {
    /** Who connected: the grouping of the top-sources table. */
    record Source(String user, String database, String applicationName, String host) {
    }

    /** A session: when it was authorized (or began, from its session time) and how long it lasted. */
    record Session(Source source, long startMillis, long durationMillis, boolean ended) {
    }

    /** A session whose disconnection has not been read yet. */
    private static final class Open {
        String host;
        Source authorized;
        long authorizedMillis = -1;
    }

    private final Map<String, Open> open = new HashMap<>();
    private final List<Long> authorizations = new ArrayList<>();
    private final List<Session> sessions = new ArrayList<>();
    private long lines;
    private long malformed;
    private long otherMessages;
    private long lastMillis = Long.MIN_VALUE;

    void line() {
        lines++;
    }

    void malformed() {
        malformed++;
    }

    void otherMessage() {
        otherMessages++;
    }

    void received(String pid, String host) {
        Open o = new Open();
        o.host = host;
        open.put(pid, o);
    }

    void authorized(String pid, long millis, String user, String database, String applicationName) {
        seen(millis);
        Open o = open.computeIfAbsent(pid, p -> new Open());
        o.authorized = new Source(user, database, applicationName, o.host == null ? "?" : o.host);
        o.authorizedMillis = millis;
        authorizations.add(millis);
    }

    void disconnected(String pid, long millis, long sessionMillis, String user, String database, String host) {
        seen(millis);
        Open o = open.remove(pid);
        Source source;
        if (o != null && o.authorized != null) {
            Source a = o.authorized;
            source = new Source(a.user(), a.database(), a.applicationName(), "?".equals(a.host()) ? host : a.host());
        } else {
            source = new Source(user, database, "?", host);
        }
        sessions.add(new Session(source, millis - sessionMillis, sessionMillis, true));
    }

    private void seen(long millis) {
        lastMillis = Math.max(lastMillis, millis);
    }

    /** Sessions authorized but not ended in the log count as lasting until its last line. */
    List<Session> sessions() {
        List<Session> all = new ArrayList<>(sessions);
        for (Open o : open.values()) {
            if (o.authorized != null) {
                all.add(new Session(o.authorized, o.authorizedMillis, lastMillis - o.authorizedMillis, false));
            }
        }
        return all;
    }

    List<Long> authorizations() {
        return authorizations;
    }

    long lines() {
        return lines;
    }

    long malformedLines() {
        return malformed;
    }

    long otherMessages() {
        return otherMessages;
    }
}
