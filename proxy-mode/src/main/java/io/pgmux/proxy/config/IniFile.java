package io.pgmux.proxy.config;

import io.pgmux.proxy.auth.Utf8Lines;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.file.FileSystemException;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The sections of a pgbouncer.ini-shaped file: {@code [section]} headers, {@code key = value} lines, comments
 * starting with {@code ;} or {@code #}, and {@code %include file} lines, whose file is read in their place.
 * Section names are case-insensitive; keys keep their spelling (database names are case-sensitive) and a key
 * given twice keeps the last value, as in PgBouncer.
 *
 * <p>As in PgBouncer, an included file continues the section it is included in, a section it opens stays
 * open after it, and a relative include path is taken from the working directory, not the including file's.
 */
public final class IniFile {
    private static final String INCLUDE = "%include";

    private final Map<String, Map<String, String>> sections = new LinkedHashMap<>();
    /** Per section and key, where its value was set ({@link #place}), so that a bad value can be pointed at. */
    private final Map<String, Map<String, String>> places = new LinkedHashMap<>();
    /** Per section, where its header first stands ({@link #place}), so that an unknown section can be pointed at. */
    private final Map<String, String> headers = new LinkedHashMap<>();
    /** The files being read, outermost first, to refuse an include cycle. */
    private final Deque<Path> reading = new ArrayDeque<>();
    private Map<String, String> current;
    private Map<String, String> currentPlaces;

    private IniFile() {
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
        IniFile ini = new IniFile();
        try (BufferedReader lines = new BufferedReader(reader)) {
            ini.read(lines.lines().toList(), null);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        return ini;
    }

    /**
     * Reads {@code file} and the files it includes.
     *
     * @throws IllegalArgumentException naming the file and line of a malformed line, a byte that is not UTF-8 or a
     *     control character, a missing included file or an include cycle, or the file that cannot be read as text
     *     (a directory)
     */
    public static IniFile load(Path file) throws IOException {
        IniFile ini = new IniFile();
        Path absolute = file.toAbsolutePath().normalize();
        try {
            ini.readFile(absolute);
        } catch (FileSystemException e) {
            throw e;
        } catch (IOException e) {
            // a directory in the file's place: said with the file's name, as a bad line is
            throw new IllegalArgumentException(absolute + ": " + e.getMessage(), e);
        }
        return ini;
    }

    private void readFile(Path file) throws IOException {
        List<String> lines = Utf8Lines.read(file, (number, problem) -> error(file, number, problem));
        reading.addLast(file);
        try {
            read(lines, file);
        } finally {
            reading.removeLast();
        }
    }

    private void read(List<String> lines, Path file) throws IOException {
        int number = 0;
        for (String raw : lines) {
            number++;
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith(";") || line.startsWith("#")) {
                continue;
            }
            if (line.startsWith("%")) {
                include(line, file, number);
                continue;
            }
            if (line.startsWith("[")) {
                if (!line.endsWith("]")) {
                    throw error(file, number, "unterminated section header");
                }
                String name = line.substring(1, line.length() - 1).strip().toLowerCase(Locale.ROOT);
                headers.putIfAbsent(name, place(file, number));
                current = sections.computeIfAbsent(name, k -> new LinkedHashMap<>());
                currentPlaces = places.computeIfAbsent(name, k -> new LinkedHashMap<>());
                continue;
            }
            int eq = line.indexOf('=');
            if (eq <= 0) {
                throw error(file, number, "expected key = value");
            }
            if (current == null) {
                throw error(file, number, "setting outside of a section");
            }
            String key = line.substring(0, eq).strip();
            current.put(key, line.substring(eq + 1).strip());
            currentPlaces.put(key, place(file, number));
        }
    }

    private void include(String line, Path file, int number) throws IOException {
        if (!line.startsWith(INCLUDE) || line.length() == INCLUDE.length()
                || !Character.isWhitespace(line.charAt(INCLUDE.length()))) {
            throw error(file, number, "unknown directive \"" + line.split("\\s", 2)[0] + "\" (only %include exists)");
        }
        String name = line.substring(INCLUDE.length()).strip();
        Path included;
        try {
            included = Path.of(name).toAbsolutePath().normalize();
        } catch (InvalidPathException e) {
            throw error(file, number, "%include: not a file name (" + e.getReason() + ")");
        }
        if (reading.contains(included)) {
            throw error(file, number, "%include " + name + ": " + included
                    + " is already being read (an include cycle)");
        }
        try {
            readFile(included);
        } catch (NoSuchFileException e) {
            throw error(file, number, "%include " + name + ": no such file " + included
                    + " (a relative name is taken from the working directory)");
        } catch (IOException e) {
            throw error(file, number, "%include " + name + ": cannot read " + included + ": " + e.getMessage());
        }
    }

    private static IllegalArgumentException error(Path file, int number, String message) {
        return new IllegalArgumentException(place(file, number) + ": " + message);
    }

    private static String place(Path file, int number) {
        return (file == null ? "" : file + " ") + "line " + number;
    }

    /**
     * Where {@code key} of section {@code name} was set, as this file's own errors name it: the file (an included
     * one where the value came from there) and line, {@code "/etc/pgbouncer/pgbouncer.ini line 7"}, or only the line
     * for an ini not read from a file; null when the key is not set.
     */
    public String place(String name, String key) {
        Map<String, String> section = places.get(name.toLowerCase(Locale.ROOT));
        return section == null ? null : section.get(key);
    }

    /**
     * The sections' names in lower case, each with where its header first stands, in file order: for a reader that
     * refuses sections it does not know.
     */
    public Map<String, String> headers() {
        return Collections.unmodifiableMap(headers);
    }

    /** The settings of {@code name}, in file order; empty when the section is absent. */
    public Map<String, String> section(String name) {
        Map<String, String> section = sections.get(name.toLowerCase(Locale.ROOT));
        return section == null ? Map.of() : Collections.unmodifiableMap(section);
    }
}
