package io.pgmux.proxy.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The settings sit below what reads them: no package config imports imports config back, directly or not; and no
 * package of the proxy depends on itself through others.
 */
class ConfigDependenciesTest {
    private static final Path SOURCES = Path.of("src/main/java/io/pgmux/proxy");
    private static final String CONFIG = "io.pgmux.proxy.config";
    private static final Pattern IMPORT = Pattern.compile(
            "^import (?:static )?(io\\.pgmux\\.proxy(?:\\.[a-z]+)?)\\.[A-Z]", Pattern.MULTILINE);

    @Test
    void noPackageConfigDependsOnDependsOnConfig() {
        Map<String, Set<String>> imports = proxyPackageImports();
        Set<String> reached = new TreeSet<>();
        Set<String> next = new TreeSet<>(imports.getOrDefault(CONFIG, Set.of()));
        while (!next.isEmpty()) {
            String p = next.iterator().next();
            next.remove(p);
            if (!p.equals(CONFIG) && reached.add(p)) {
                next.addAll(imports.getOrDefault(p, Set.of()));
            }
        }
        Set<String> importingConfigBack = new TreeSet<>();
        reached.forEach(p -> {
            if (imports.getOrDefault(p, Set.of()).contains(CONFIG)) {
                importingConfigBack.add(p);
            }
        });
        assertEquals(Set.of(), importingConfigBack, "config depends on " + reached);
    }

    @Test
    void noPackageOfTheProxyDependsOnItselfThroughOthers() {
        Map<String, Set<String>> imports = proxyPackageImports();
        Set<String> inCircles = new TreeSet<>();
        for (String start : imports.keySet()) {
            Set<String> reached = new TreeSet<>();
            Set<String> next = new TreeSet<>(imports.get(start));
            while (!next.isEmpty()) {
                String p = next.iterator().next();
                next.remove(p);
                if (reached.add(p)) {
                    next.addAll(imports.getOrDefault(p, Set.of()));
                }
            }
            if (reached.contains(start)) {
                inCircles.add(start);
            }
        }
        assertEquals(Set.of(), inCircles, "packages in an import circle");
    }

    /** Each package of proxy-mode's sources, with the other proxy packages its files import. */
    private static Map<String, Set<String>> proxyPackageImports() {
        Map<String, Set<String>> imports = new TreeMap<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            files.filter(f -> f.toString().endsWith(".java")).forEach(f -> {
                String pkg = ("io.pgmux.proxy." + SOURCES.relativize(f.getParent())).replace('/', '.');
                pkg = pkg.endsWith(".") ? pkg.substring(0, pkg.length() - 1) : pkg;
                Set<String> own = imports.computeIfAbsent(pkg, k -> new TreeSet<>());
                Matcher m = IMPORT.matcher(read(f));
                while (m.find()) {
                    if (!m.group(1).equals(pkg)) {
                        own.add(m.group(1));
                    }
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return imports;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
