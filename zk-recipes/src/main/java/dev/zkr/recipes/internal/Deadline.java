package dev.zkr.recipes.internal;

import java.time.Duration;
import java.util.Objects;

/**
 * A point in time on the monotonic clock ({@link System#nanoTime()}), or none (wait forever); optionally cut short by
 * a {@link Signal} (e.g. the recipe's close): once it fired the deadline counts as passed.
 */
public final class Deadline {

    public static final Deadline NONE = new Deadline(Long.MAX_VALUE, false, null);

    private final long at;
    private final boolean bounded;
    private final Signal cancel;

    private Deadline(long at, boolean bounded, Signal cancel) {
        this.at = at;
        this.bounded = bounded;
        this.cancel = cancel;
    }

    public static Deadline after(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout is negative: " + timeout);
        }
        long nanos;
        try {
            nanos = timeout.toNanos();
        } catch (ArithmeticException e) {
            return NONE;
        }
        return new Deadline(System.nanoTime() + nanos, true, null);
    }

    /** This deadline, also passed as soon as {@code signal} fires. */
    public Deadline cancelledBy(Signal signal) {
        return new Deadline(at, bounded, Objects.requireNonNull(signal, "signal"));
    }

    /** The signal that cuts this deadline short, or null. */
    public Signal cancel() {
        return cancel;
    }

    public boolean isBounded() {
        return bounded;
    }

    /** Remaining nanoseconds (Long.MAX_VALUE when unbounded, 0 once cancelled, never negative). */
    public long remainingNanos() {
        if (cancel != null && cancel.isFired()) {
            return 0;
        }
        if (!bounded) {
            return Long.MAX_VALUE;
        }
        return Math.max(0, at - System.nanoTime());
    }

    public boolean expired() {
        return (cancel != null && cancel.isFired()) || (bounded && at - System.nanoTime() <= 0);
    }
}
