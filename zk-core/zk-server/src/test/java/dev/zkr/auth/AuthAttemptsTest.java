package dev.zkr.auth;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The policy of refused authentications on one connection (pure, on a clock passed in). */
class AuthAttemptsTest {

    private static final long MS = 1_000_000L;

    @Test
    void theFirstRefusalsAreFreeThenEachOpensADoublingWaitUpToTheMaximum() {
        AuthAttempts a = new AuthAttempts();
        long now = 0;
        for (int i = 1; i < AuthAttempts.FREE_FAILURES; i++) {
            a.refused(now);
            assertTrue(a.waitNanos(now) <= 0, "refusal " + i + " is free");
        }
        long expected = AuthAttempts.FIRST_WAIT_MS;
        for (int i = 0; i < 8; i++) {
            a.refused(now);
            assertEquals(Math.min(expected, AuthAttempts.MAX_WAIT_MS) * MS, a.waitNanos(now));
            now += a.waitNanos(now); // the guesser waits exactly as long as told
            assertTrue(a.waitNanos(now) <= 0);
            expected *= 2;
        }
        assertEquals(AuthAttempts.MAX_WAIT_MS * MS, waitAfterRefusal(a, now));
    }

    @Test
    void knockingDuringTheWaitDoesNotEvaluateAndDoesNotExtendIt() {
        AuthAttempts a = new AuthAttempts();
        for (int i = 0; i < AuthAttempts.FREE_FAILURES; i++) {
            a.refused(0);
        }
        long wait = a.waitNanos(0);
        assertEquals(AuthAttempts.FIRST_WAIT_MS * MS, wait);
        // attempts inside the wait are answered without calling refused(): the wait ends when it said it would
        assertEquals(wait - 100 * MS, a.waitNanos(100 * MS));
        assertTrue(a.waitNanos(wait) <= 0);
    }

    @Test
    void aSuccessClearsTheCount() {
        AuthAttempts a = new AuthAttempts();
        for (int i = 0; i < 10; i++) {
            a.refused(0);
        }
        a.succeeded();
        assertEquals(0, a.failures());
        assertTrue(a.waitNanos(0) <= 0);
        a.refused(0);
        assertTrue(a.waitNanos(0) <= 0, "free again after a success");
    }

    private static long waitAfterRefusal(AuthAttempts a, long now) {
        a.refused(now);
        return a.waitNanos(now);
    }
}
