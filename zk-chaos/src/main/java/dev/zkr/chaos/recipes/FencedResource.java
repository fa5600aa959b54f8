package dev.zkr.chaos.recipes;

import java.util.ArrayList;
import java.util.List;

/**
 * The resource the lock and latch holders write to, kept in the runner: it accepts a write only with a token at
 * least the highest it has accepted (so a stale holder — one whose token an earlier-accepted writer's exceeds — is
 * rejected), and records every attempt with its time, worker, token and verdict.
 */
final class FencedResource {

    /** One write attempt: when (history time), by whom, with which token, accepted or not. */
    record Attempt(long time, int worker, long token, boolean accepted) {
    }

    private final List<Attempt> attempts = new ArrayList<>();
    private long highest = Long.MIN_VALUE;

    /** Accepts the write if {@code token} is at least the highest accepted so far; records the attempt. */
    synchronized boolean write(long time, int worker, long token) {
        boolean accepted = token >= highest;
        if (accepted) {
            highest = token;
        }
        attempts.add(new Attempt(time, worker, token, accepted));
        return accepted;
    }

    synchronized long highest() {
        return highest;
    }

    synchronized List<Attempt> attempts() {
        return List.copyOf(attempts);
    }

    synchronized long rejected() {
        return attempts.stream().filter(a -> !a.accepted()).count();
    }
}
