package dev.zkr.bench;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * The timing of one scenario run: a warm-up, then a measuring window, then stop. Workers poll {@link #stopped()}
 * and count completed operations with {@link #count()}, which only counts inside the window. The first worker
 * failure ends the run early and is reported instead of a figure.
 */
final class Window {

    private final Duration warmup;
    private final Duration measure;
    private final LongAdder ops = new LongAdder();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean measuring;
    private volatile boolean stopped;
    private volatile long startNanos;
    private volatile long endNanos;

    Window(Duration warmup, Duration measure) {
        this.warmup = warmup;
        this.measure = measure;
    }

    boolean measuring() {
        return measuring;
    }

    boolean stopped() {
        return stopped || failure.get() != null;
    }

    void count() {
        if (measuring) {
            ops.increment();
        }
    }

    void fail(Throwable t) {
        if (failure.compareAndSet(null, t)) {
            stopped = true;
        }
    }

    Throwable failure() {
        return failure.get();
    }

    /** Blocks the calling (driver) thread through warm-up and window, then flags the workers to stop. */
    void run() {
        sleepUnlessFailed(warmup);
        startNanos = System.nanoTime();
        measuring = true;
        sleepUnlessFailed(measure);
        measuring = false;
        endNanos = System.nanoTime();
        stopped = true;
    }

    /** Operations per second inside the window. */
    double throughput() {
        double seconds = (endNanos - startNanos) / 1e9;
        return seconds <= 0 ? Double.NaN : ops.sum() / seconds;
    }

    long measuredOps() {
        return ops.sum();
    }

    private void sleepUnlessFailed(Duration d) {
        long deadline = System.nanoTime() + d.toNanos();
        while (failure.get() == null) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            ServerProcess.pause(Math.min(50, Math.max(1, left / 1_000_000)));
        }
    }
}
