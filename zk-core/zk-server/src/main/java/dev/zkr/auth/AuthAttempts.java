package dev.zkr.auth;

/**
 * One connection's authentication attempts, so that guessing costs the guesser time and the server nothing more
 * than any other request. Pure (the caller passes the time); not thread-safe: a client connection's is touched only inside rounds, the
 * admin endpoint's on its one thread.
 * <ul>
 *   <li>The first {@link #FREE_FAILURES} refused attempts are answered at once. From then on each refusal opens a
 *       wait — {@link #FIRST_WAIT_MS} ms, doubling up to {@link #MAX_WAIT_MS} ms — during which every attempt is
 *       refused without being evaluated (so no guess is tried, and a provider's work is not done), and which does
 *       not grow while the guesser keeps knocking. A success clears the count.</li>
 *   <li>A connection holds at most {@link #MAX_IDS} ids (its {@code ip} and {@code x509} ids included): a wrong
 *       digest password is not a refusal but another id (as in ZooKeeper), so without a cap one connection could
 *       collect ids without end and make every ACL check of its requests slower.</li>
 * </ul>
 */
public final class AuthAttempts {

    public static final int FREE_FAILURES = 3;
    public static final long FIRST_WAIT_MS = 250;
    public static final long MAX_WAIT_MS = 2_000;
    public static final int MAX_IDS = 16;

    private int failures;
    private long waitUntil;

    /** Nanoseconds until the next attempt will be evaluated; 0 or less: now. */
    public long waitNanos(long now) {
        return failures < FREE_FAILURES ? 0 : waitUntil - now;
    }

    /** An evaluated attempt was refused at {@code now}. */
    public void refused(long now) {
        failures++;
        if (failures >= FREE_FAILURES) {
            int doublings = Math.min(failures - FREE_FAILURES, 30);
            long waitMs = Math.min(MAX_WAIT_MS, FIRST_WAIT_MS << Math.min(doublings, 20));
            waitUntil = now + waitMs * 1_000_000L;
        }
    }

    /** An evaluated attempt succeeded. */
    public void succeeded() {
        failures = 0;
    }

    /** Refused attempts since the last success. */
    public int failures() {
        return failures;
    }
}
