package io.pgmux.proxy.standalone;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The C heap is trimmed through the JVM's own diagnostic command, on the JDKs that have it. */
class NativeHeapTest {
    @Test
    void aJdkWithTrimNativeHeapOnGlibcTrimsAndReportsTheRss() {
        Runtime.Version version = Runtime.version();
        assumeTrue(version.compareToIgnoreOptional(Runtime.Version.parse("17.0.9")) >= 0,
                "System.trim_native_heap came with JDK 17.0.9");
        // musl has no malloc_trim; its dynamic loader is named for it
        assumeTrue(Files.exists(Path.of("/proc/self/maps")) && !isMusl(), "glibc on Linux");
        String report = NativeHeap.trim();
        assertNotNull(report);
        assertTrue(report.matches("(?s).*RSS\\+Swap: \\d+[BKMG]->\\d+[BKMG].*"), report);
    }

    private static boolean isMusl() {
        try {
            return Files.readString(Path.of("/proc/self/maps")).contains("ld-musl");
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
