package io.pgmux.proxy.parameters;

import java.util.Collections;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The session parameters of one server connection: those the server reports (GUC_REPORT: server_version,
 * TimeZone, …) as it last reported them, and those it does not report (search_path, options -c …) as the pooler
 * last set them. Written on the server's loop, read by clients on theirs.
 */
public final class ServerParameters {
    private final Map<String, String> reported = new ConcurrentHashMap<>();
    private final Map<String, String> unreported = new ConcurrentHashMap<>();
    /** Counts the changes of these parameters, so that what was found of them once is known to hold still. */
    private volatile int version;
    /** The settings a client was last found to have here, at {@link #version}; see ClientParameters#replayFor. */
    private volatile Matched matched;

    /** A client's settings, found to be those of the server at its {@code version}: no replay needed. */
    private record Matched(Object settings, int version) {
    }

    /** A ParameterStatus from the server. */
    public void onParameterStatus(String name, String value) {
        if (!value.equals(reported.put(name, value))) {
            changed();
        }
    }

    /** The parameters changed: what was found of them before no longer holds. */
    void changed() {
        version++;
    }

    int version() {
        return version;
    }

    /** The settings found here at {@code version}, or null if none were or the parameters changed since. */
    Object matched(int version) {
        Matched m = matched;
        return m != null && m.version == version ? m.settings : null;
    }

    /** Records that a client with {@code settings} needed no replay here at {@code version}. */
    void matched(Object settings, int version) {
        Matched m = matched;
        if (m == null || m.settings != settings || m.version != version) {
            matched = new Matched(settings, version);
        }
    }

    /** The value the server last reported for {@code name}, or null. */
    public String get(String name) {
        return reported.get(name);
    }

    /** The major version of PostgreSQL the server reported ({@code 17} of {@code 17.2}), 0 if unknown. */
    public int majorVersion() {
        String version = reported.get("server_version");
        int major = 0;
        for (int i = 0; version != null && i < version.length() && Character.isDigit(version.charAt(i)); i++) {
            major = major * 10 + version.charAt(i) - '0';
        }
        return major;
    }

    /** The reported parameters, live. */
    public Map<String, String> reported() {
        return Collections.unmodifiableMap(reported);
    }

    /** Settings the pooler replayed that the server does not report back, live. */
    public Map<String, String> unreported() {
        return unreported;
    }

    /** After server_reset_query: the server has its defaults again for what it does not report. */
    public void reset() {
        unreported.clear();
        changed();
    }
}
