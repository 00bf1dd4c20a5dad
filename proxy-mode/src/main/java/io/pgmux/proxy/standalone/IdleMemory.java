package io.pgmux.proxy.standalone;

import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.VMOption;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Lets an idle standalone proxy give the heap it no longer uses back to the system, as a PgBouncer process stays
 * small once its clients are idle: with G1, and unless the java command line sets them, a collection runs after
 * {@value #PERIODIC_GC_MILLIS} ms without one (G1PeriodicGCInterval) and leaves at most 10 % of the heap free
 * (MinHeapFreeRatio 5 and MaxHeapFreeRatio 10 instead of 40 and 70: 3–4 MB less heap committed once idle than with
 * 10 and 20, docs/benchmarks.md). Under load, collections come anyway and the
 * periodic one never runs; the free ratios apply only where G1 resizes the heap after a full collection or a
 * concurrent cycle, never after a young one. {@link PeriodicCollection} turns the periodic collection off while
 * it has nothing to give back. All three are manageable flags, set at run time; the library's own
 * embedders keep whatever their JVM has.
 */
final class IdleMemory {
    static final long PERIODIC_GC_MILLIS = 60_000;
    /** What {@link #apply} lists when it turned the periodic collection on. */
    static final String PERIODIC_GC = "G1PeriodicGCInterval=" + PERIODIC_GC_MILLIS;

    /** In order: MinHeapFreeRatio first, as MaxHeapFreeRatio may never be set below it. */
    private static final List<Map.Entry<String, String>> SETTINGS = List.of(Map.entry("MinHeapFreeRatio", "5"),
            Map.entry("MaxHeapFreeRatio", "10"), Map.entry("G1PeriodicGCInterval", Long.toString(PERIODIC_GC_MILLIS)));

    private IdleMemory() {
    }

    /** Sets each flag the command line left at its default; the {@code name=value}s set, for the log. */
    static List<String> apply() {
        HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        List<String> applied = new ArrayList<>();
        if (vm == null || !"true".equals(value(vm, "UseG1GC"))) {
            return applied;
        }
        for (Map.Entry<String, String> setting : SETTINGS) {
            try {
                VMOption option = vm.getVMOption(setting.getKey());
                if (option.getOrigin() == VMOption.Origin.DEFAULT && option.isWriteable()) {
                    vm.setVMOption(setting.getKey(), setting.getValue());
                    applied.add(setting.getKey() + "=" + setting.getValue());
                }
            } catch (IllegalArgumentException e) {
                // no such flag in this JVM, or a value the command line's other settings rule out: keep the JVM's
            }
        }
        return applied;
    }

    private static String value(HotSpotDiagnosticMXBean vm, String flag) {
        try {
            return vm.getVMOption(flag).getValue();
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
