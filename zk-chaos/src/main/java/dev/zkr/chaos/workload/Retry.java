package dev.zkr.chaos.workload;

import java.util.concurrent.Callable;

/** Final reads on a healed ensemble: retried (a member may still be catching up) until a deadline. */
final class Retry {

    private static final long DEADLINE_MS = 60_000;

    private Retry() {
    }

    static <T> T until(String what, Callable<T> read) throws Exception {
        long deadline = System.nanoTime() + DEADLINE_MS * 1_000_000;
        Exception last;
        do {
            try {
                return read.call();
            } catch (Exception e) {
                last = e;
                Thread.sleep(100);
            }
        } while (System.nanoTime() < deadline);
        throw new IllegalStateException(what + " failed for " + DEADLINE_MS + " ms after healing: " + last, last);
    }
}
