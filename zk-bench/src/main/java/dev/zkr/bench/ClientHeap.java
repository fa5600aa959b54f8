package dev.zkr.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/**
 * The heap this (runner) JVM holds after full collections: {@code System.gc()} (a full, stop-the-world collection
 * on the default G1 unless {@code -XX:+ExplicitGCInvokesConcurrent} or {@code -XX:+DisableExplicitGC} is given), then
 * the used heap from the {@link MemoryMXBean}. Collected until two readings in a row agree within 64 KB (at most 8
 * times), and the lowest reading is returned, so garbage that survives one collection (finalizers, references
 * cleared late) does not count.
 */
final class ClientHeap {

    private static final long SETTLED = 64 * 1024;
    private static final int MAX_COLLECTIONS = 8;

    private ClientHeap() {
    }

    static long usedAfterFullGc() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long lowest = Long.MAX_VALUE;
        long previous = -1;
        for (int i = 0; i < MAX_COLLECTIONS; i++) {
            System.gc();
            long used = memory.getHeapMemoryUsage().getUsed();
            lowest = Math.min(lowest, used);
            if (previous >= 0 && Math.abs(used - previous) <= SETTLED) {
                break;
            }
            previous = used;
        }
        return lowest;
    }
}
