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

    /** A ParameterStatus from the server. */
    public void onParameterStatus(String name, String value) {
        reported.put(name, value);
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
    }
}
