package dev.zkr.consensus;

/**
 * A protocol rule found broken (a leader lacking a follower's committed zxid, a truncation below the commit point,
 * two leaders in one epoch). It means a bug or corrupted storage: the driver stops the replica (fail-stop).
 */
public final class ConsensusViolation extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ConsensusViolation(String message) {
        super(message);
    }
}
