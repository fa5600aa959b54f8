package dev.zkr.recipes;

import java.time.Duration;
import java.util.Objects;

/** A point in time on the monotonic clock ({@link System#nanoTime()}), or none (wait forever). */
final class Deadline {

    static final Deadline NONE = new Deadline(Long.MAX_VALUE, false);

    private final long at;
    private final boolean bounded;

    private Deadline(long at, boolean bounded) {
        this.at = at;
        this.bounded = bounded;
    }

    static Deadline after(Duration timeout) {
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
        return new Deadline(System.nanoTime() + nanos, true);
    }

    boolean isBounded() {
        return bounded;
    }

    /** Remaining nanoseconds (Long.MAX_VALUE when unbounded, never negative). */
    long remainingNanos() {
        if (!bounded) {
            return Long.MAX_VALUE;
        }
        return Math.max(0, at - System.nanoTime());
    }

    boolean expired() {
        return bounded && at - System.nanoTime() <= 0;
    }
}
