package dev.zkr.consensus;

/** An invariant of docs/testing.md, Consensus simulator, found broken by the simulator. */
final class SimFailure extends AssertionError {
    private static final long serialVersionUID = 1L;

    SimFailure(String message) {
        super(message);
    }
}
