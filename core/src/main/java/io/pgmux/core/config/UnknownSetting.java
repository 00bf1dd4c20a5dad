package io.pgmux.core.config;

import java.util.Locale;

/**
 * The one wording of "this name is no setting": {@code unknown pool setting 'defualt_pool_size'; did you mean
 * 'default_pool_size'?}, for every place settings are read (pool builder, per-database and per-user settings,
 * JDBC URL and properties, the proxy's ini file).
 */
public final class UnknownSetting {
    private UnknownSetting() {
    }

    /**
     * @param what    what the name was meant to be ("pool setting", "property", …)
     * @param nearest the known name closest to {@code name}, or null when none is close
     */
    public static String message(String what, String name, String nearest) {
        return "unknown " + what + " '" + name + "'" + (nearest != null ? "; did you mean '" + nearest + "'?" : "");
    }

    /** The candidate closest to a misspelt {@code name} (ignoring case), or null when none is close enough. */
    public static String nearest(String name, Iterable<String> candidates) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        int threshold = Math.max(3, name.length() / 3);
        String needle = name.toLowerCase(Locale.ROOT);
        for (String candidate : candidates) {
            // the distance is at least the difference in length: a name far longer (a garbled line) costs nothing
            if (Math.abs(needle.length() - candidate.length()) > threshold) {
                continue;
            }
            int d = editDistance(needle, candidate.toLowerCase(Locale.ROOT));
            if (d < bestDistance) {
                bestDistance = d;
                best = candidate;
            }
        }
        return bestDistance <= threshold ? best : null;
    }

    private static int editDistance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
