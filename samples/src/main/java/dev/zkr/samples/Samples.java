package dev.zkr.samples;

import java.time.Duration;

/** Shared bits of the per-recipe samples: quiet logging, timestamped output. */
final class Samples {

    private static final long T0 = System.nanoTime();

    private Samples() {
    }

    /** Keeps the libraries' logging to warnings and errors unless asked otherwise. */
    static void quietLogs() {
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "error");
        }
    }

    /** Prints a line stamped with the time since start and the thread name. */
    static synchronized void say(String format, Object... args) {
        System.out.printf("[%5.2fs] %-10s %s%n", (System.nanoTime() - T0) / 1e9, Thread.currentThread().getName(),
                String.format(format, args));
    }

    /** Polls {@code condition} until true (fails after 10 s). */
    static void awaitTrue(java.util.function.BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out waiting for " + what);
            }
            pause(Duration.ofMillis(10));
        }
    }

    /** Pauses for show (so a person can see who waits for whom); never used to synchronise. */
    static void pause(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
