package dev.zkr.consensus;

/**
 * The consensus metadata a replica persists (consensus.meta): the highest epoch it promised ({@code acceptedEpoch})
 * and whom it voted for in that epoch ({@code votedFor}, -1 for nobody). Must be durable before the messages of the
 * {@link Ready} that carries it are sent (P1).
 */
public record Meta(long acceptedEpoch, int votedFor) {
    public static final Meta FRESH = new Meta(0, -1);
}
