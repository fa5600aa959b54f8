package dev.zkr.chaos.workload;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Keeps a queue workload's queue short: producers wait while more than {@link #MAX} offered items are not yet
 * taken. Consumers need more round trips per item than producers, so without it a long run grows a queue whose
 * children list no longer fits in a reply (for the recipe's consumers and for the final drain alike).
 */
final class Backlog {

    static final long MAX = 2_000;

    private final AtomicLong offered = new AtomicLong();
    private final AtomicLong taken = new AtomicLong();

    /** Waits (in 5 ms steps, until {@code w} stops) while the backlog is full; then counts one offer. */
    void beforeOffer(Worker w) {
        while (offered.get() - taken.get() >= MAX && !w.stopped()) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        offered.incrementAndGet();
    }

    /** Counts one item taken by a consumer. */
    void taken() {
        taken.incrementAndGet();
    }
}
