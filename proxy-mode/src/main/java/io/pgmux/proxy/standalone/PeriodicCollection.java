package io.pgmux.proxy.standalone;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Keeps G1's periodic collection ({@link IdleMemory}) on only while it can give heap back. G1 runs it whenever none
 * ran for its interval, so an idle process would collect once a minute for ever, each time for nothing after the
 * first: about 20 ms of CPU a minute, a fifth of what an idle process uses. A collection that follows the one
 * before with less than {@link #ALLOCATED_BYTES} allocated in between found the heap as small as it gets: the
 * periodic collection is turned off then, and on again once that much has been allocated since, or by a collection
 * after more (a burst of logins collects at every sample; the allocation between two collections that no sample
 * separates is not known, so they count as busy). The process has turned idle when the collection is turned off,
 * so the C heap is trimmed then too ({@link NativeHeap}): what the busy time freed there is given back as the Java
 * heap's was; a trim follows the one before by {@link #TRIM_SPACING_NANOS} at least. A janitor chore, so checked on
 * each pass (once a second with the default settings).
 */
final class PeriodicCollection implements Runnable {
    static final long ALLOCATED_BYTES = 1 << 20;
    static final long TRIM_SPACING_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final HotSpotDiagnosticMXBean vm;
    private final List<GarbageCollectorMXBean> collectors;
    private final MemoryMXBean memory;
    private final String interval;
    private final Runnable turnedIdle;
    private long collections = -1;
    private long usedAfterLast;
    private long usedBefore;
    /** Whether the sample before saw a collection: the heap in use it read was no allocation's measure. */
    private boolean collectedBefore = true;
    private boolean on = true;
    private boolean trimmed;
    private long trimmedAtNanos;

    /** @param interval the G1PeriodicGCInterval to set while the collection is on */
    PeriodicCollection(String interval) {
        this(interval, () -> {
            String trimmed = NativeHeap.trim();
            if (trimmed != null) {
                ProcessLog.write(ProcessLog.Level.DEBUG, "idle: " + trimmed, null);
            }
        });
    }

    /** @param turnedIdle run each time the collection is turned off: the process has turned idle */
    PeriodicCollection(String interval, Runnable turnedIdle) {
        this.turnedIdle = turnedIdle;
        this.vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        this.collectors = ManagementFactory.getGarbageCollectorMXBeans();
        this.memory = ManagementFactory.getMemoryMXBean();
        this.interval = interval;
    }

    @Override
    public void run() {
        long count = 0;
        for (GarbageCollectorMXBean collector : collectors) {
            count += collector.getCollectionCount();
        }
        boolean wasOn = on;
        if (observe(count, memory.getHeapMemoryUsage().getUsed(), System.nanoTime()) != wasOn) {
            vm.setVMOption("G1PeriodicGCInterval", on ? interval : "0");
        }
    }

    /**
     * Takes one sample: how many collections have run, the heap in use now and the time; whether the periodic
     * collection should be on.
     */
    boolean observe(long collectionCount, long usedBytes, long nowNanos) {
        boolean collected = collectionCount != collections;
        if (collected) {
            boolean allocatedLittle = !collectedBefore && collectionCount - collections == 1
                    && usedBefore - usedAfterLast < ALLOCATED_BYTES;
            collections = collectionCount;
            usedAfterLast = usedBytes;
            if (!allocatedLittle) {
                on = true;
            } else if (on) {
                on = false;
                if (!trimmed || nowNanos - trimmedAtNanos >= TRIM_SPACING_NANOS) {
                    trimmed = true;
                    trimmedAtNanos = nowNanos;
                    turnedIdle.run();
                }
            }
        } else if (usedBytes - usedAfterLast >= ALLOCATED_BYTES) {
            on = true;
        }
        collectedBefore = collected;
        usedBefore = usedBytes;
        return on;
    }
}
