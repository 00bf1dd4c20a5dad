package io.pgmux.jmh.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** What a result depends on beside the code: CPU, cores, JDK, and how busy the machine was. */
final class Machine {
    private Machine() {
    }

    /** The 1, 5 and 15 minute load averages from {@code /proc/loadavg}, or "n/a" where there is none. */
    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + ", " + f[1] + ", " + f[2];
        } catch (IOException | RuntimeException e) {
            return "n/a";
        }
    }

    static String cpuModel() {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/cpuinfo"));
            for (String l : lines) {
                if (l.startsWith("model name")) {
                    return l.substring(l.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException e) {
            return "n/a";
        }
        return "n/a";
    }

    static String describe() {
        return Runtime.getRuntime().availableProcessors() + " cores, " + cpuModel() + ", JDK "
                + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")";
    }
}
