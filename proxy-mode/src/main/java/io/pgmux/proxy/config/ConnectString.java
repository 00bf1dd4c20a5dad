package io.pgmux.proxy.config;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * PgBouncer's {@code key=value key='quoted value'} lists, the values of {@code [databases]} and {@code [users]}
 * entries; a quote inside a quoted value is written twice. A key given twice keeps the last value.
 */
public final class ConnectString {
    private ConnectString() {
    }

    /**
     * @param owner what the list belongs to, for messages ("database app", "user bob")
     * @throws IllegalArgumentException at text that is no key=value pair
     */
    public static Map<String, String> parse(String owner, String s) {
        Map<String, String> pairs = new LinkedHashMap<>();
        int i = 0;
        while (i < s.length()) {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            if (i == s.length()) {
                break;
            }
            int eq = s.indexOf('=', i);
            if (eq < 0) {
                throw new IllegalArgumentException(owner + ": expected key=value at \"" + s.substring(i) + "\"");
            }
            String key = s.substring(i, eq).trim();
            StringBuilder value = new StringBuilder();
            i = eq + 1;
            if (i < s.length() && s.charAt(i) == '\'') {
                i++;
                while (i < s.length() && !(s.charAt(i) == '\'' && (i + 1 == s.length() || s.charAt(i + 1) != '\''))) {
                    if (s.charAt(i) == '\'') {
                        i++;
                    }
                    value.append(s.charAt(i++));
                }
                i++;
            } else {
                while (i < s.length() && !Character.isWhitespace(s.charAt(i))) {
                    value.append(s.charAt(i++));
                }
            }
            pairs.put(key, value.toString());
        }
        return pairs;
    }
}
