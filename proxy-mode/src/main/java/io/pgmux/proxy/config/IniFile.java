package io.pgmux.proxy.config;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The sections of a pgbouncer.ini-shaped file: {@code [section]} headers, {@code key = value} lines, comments
 * starting with {@code ;} or {@code #}. Section names are case-insensitive; keys keep their spelling (database
 * names are case-sensitive) and a key given twice keeps the last value, as in PgBouncer.
 */
public final class IniFile {
    private final Map<String, Map<String, String>> sections;

    private IniFile(Map<String, Map<String, String>> sections) {
        this.sections = sections;
    }

    public static IniFile parse(String content) {
        try {
            return parse(new StringReader(content));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @throws IllegalArgumentException naming the line that is neither a section, a setting nor a comment */
    public static IniFile parse(Reader reader) throws IOException {
        Map<String, Map<String, String>> sections = new LinkedHashMap<>();
        BufferedReader lines = new BufferedReader(reader);
        Map<String, String> current = null;
        int number = 0;
        for (String raw = lines.readLine(); raw != null; raw = lines.readLine()) {
            number++;
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith(";") || line.startsWith("#")) {
                continue;
            }
            if (line.startsWith("[")) {
                if (!line.endsWith("]")) {
                    throw new IllegalArgumentException("line " + number + ": unterminated section header");
                }
                String name = line.substring(1, line.length() - 1).strip().toLowerCase(Locale.ROOT);
                current = sections.computeIfAbsent(name, k -> new LinkedHashMap<>());
                continue;
            }
            int eq = line.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("line " + number + ": expected key = value");
            }
            if (current == null) {
                throw new IllegalArgumentException("line " + number + ": setting outside of a section");
            }
            current.put(line.substring(0, eq).strip(), line.substring(eq + 1).strip());
        }
        return new IniFile(sections);
    }

    /** The settings of {@code name}, in file order; empty when the section is absent. */
    public Map<String, String> section(String name) {
        Map<String, String> section = sections.get(name.toLowerCase(Locale.ROOT));
        return section == null ? Map.of() : Collections.unmodifiableMap(section);
    }
}
