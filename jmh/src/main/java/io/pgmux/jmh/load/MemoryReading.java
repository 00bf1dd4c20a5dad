package io.pgmux.jmh.load;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.util.internal.PlatformDependent;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

/**
 * This JVM's memory as the objects alive at one moment hold it: the heap used right after full collections,
 * the direct memory Netty's default allocator (the proxy's) has reserved, and all direct memory — the JDK's
 * direct buffers and what Netty allocates without them. Kernel socket buffers are in none of these.
 *
 * @param heapUsed heap in use after full collections, in bytes
 * @param allocatorDirect direct memory held by {@link ByteBufAllocator#DEFAULT}, or -1 when it has no metric
 * @param direct all direct memory of this JVM
 */
record MemoryReading(long heapUsed, long allocatorDirect, long direct) {
    private static final int GC_ROUNDS = 5;

    /**
     * Runs full collections until the heap in use stops shrinking (at most {@value #GC_ROUNDS} rounds) and reads
     * the least heap seen, so that garbage made between rounds by the event loops does not count.
     *
     * @throws IllegalStateException when {@code System.gc()} collects nothing ({@code -XX:+DisableExplicitGC})
     */
    static MemoryReading afterFullGc() throws InterruptedException {
        long collections = collectionCount();
        long least = Long.MAX_VALUE;
        for (int i = 0; i < GC_ROUNDS; i++) {
            System.gc();
            Thread.sleep(200);
            long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            if (used >= least) {
                break;
            }
            least = used;
        }
        if (collectionCount() == collections) {
            throw new IllegalStateException("System.gc() ran no collection: run without -XX:+DisableExplicitGC");
        }
        return new MemoryReading(least, allocatorReserved(), jvmDirect());
    }

    private static long collectionCount() {
        long count = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            count += Math.max(0, gc.getCollectionCount());
        }
        return count;
    }

    private static long allocatorReserved() {
        return ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider p
                ? p.metric().usedDirectMemory() : -1;
    }

    /** The JDK counts the direct buffers it creates; Netty counts those it makes without a cleaner (-1: none). */
    private static long jvmDirect() {
        long jdk = 0;
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                jdk += pool.getMemoryUsed();
            }
        }
        return jdk + Math.max(0, PlatformDependent.usedDirectMemory());
    }
}
