package dev.zkr.recipes;

import java.util.concurrent.atomic.AtomicReference;

/** The explicit LATENT → STARTED → CLOSED lifecycle shared by every recipe, driven by compare-and-set. */
final class Lifecycle {

    enum State { LATENT, STARTED, CLOSED }

    private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
    private final String what;

    Lifecycle(String what) {
        this.what = what;
    }

    /** LATENT → STARTED; fails if started twice or closed. */
    void start() {
        if (!state.compareAndSet(State.LATENT, State.STARTED)) {
            throw new IllegalStateException(what + " cannot be started: it is " + state.get());
        }
    }

    /** Moves to CLOSED; true only for the call that closed it (close is idempotent). */
    boolean close() {
        return state.getAndSet(State.CLOSED) != State.CLOSED;
    }

    boolean isStarted() {
        return state.get() == State.STARTED;
    }

    boolean isClosed() {
        return state.get() == State.CLOSED;
    }

    /** Throws if not started. */
    void checkStarted() {
        State s = state.get();
        if (s != State.STARTED) {
            throw new IllegalStateException(what + " is " + s);
        }
    }

    State get() {
        return state.get();
    }
}
