package io.pgmux.jmh.load;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Command-line options of the load harnesses: {@code --name value} pairs, and flags that take no value.
 * The login defaults to libpq's environment variables, so that {@code --user} and {@code --password} can
 * be left out.
 */
final class LoadOptions {
    private final Map<String, String> values = new HashMap<>();

    private LoadOptions() {
    }

    static LoadOptions parse(String[] args, Set<String> known) {
        return parse(args, known, Set.of());
    }

    /** @param flags options that take no value; {@link #has} tells whether they were given */
    static LoadOptions parse(String[] args, Set<String> known, Set<String> flags) {
        LoadOptions o = new LoadOptions();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String name = a.startsWith("--") ? a.substring(2) : "";
            if (flags.contains(name)) {
                o.values.put(name, "");
                continue;
            }
            if (!known.contains(name)) {
                throw new IllegalArgumentException("unknown option " + a + "; known: --" + String.join(", --", known)
                        + (flags.isEmpty() ? "" : ", --" + String.join(", --", flags)));
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(a + " needs a value");
            }
            o.values.put(a.substring(2), args[++i]);
        }
        return o;
    }

    boolean has(String name) {
        return values.containsKey(name);
    }

    String string(String name, String fallback) {
        return values.getOrDefault(name, fallback);
    }

    int integer(String name, int fallback) {
        String v = values.get(name);
        if (v == null) {
            return fallback;
        }
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be a whole number, not " + v, e);
        }
    }

    ServerTarget target() {
        String url = values.get("url");
        if (url == null) {
            throw new IllegalArgumentException("--url jdbc:postgresql://host:port/database is required");
        }
        return new ServerTarget(url, string("user", System.getenv("PGUSER")), string("password", System.getenv("PGPASSWORD")));
    }
}
