package dev.zkr.consensus;

/**
 * Test-only switches that re-introduce one ZooKeeper bug class each, to show that the scenario tests and the
 * simulator see it (docs/testing.md, Mutations). Passed to a {@link Replica} by its package-private constructor;
 * production code only ever uses {@link #NONE}.
 */
final class Mutations {
    static final Mutations NONE = new Mutations();

    /** Follower acks a proposal when it appends it, not when the disk reports it durable (ZOOKEEPER-3911/-4646). */
    boolean ackBeforeFsync;
    /** Votes rank by the accepted epoch before the history behind it (ZK's currentEpoch: ZOOKEEPER-4643/-4785). */
    boolean epochAheadOfHistory;
    /** Follower appends a proposal even if it does not follow its last zxid (ZOOKEEPER-4925). */
    boolean diffWithoutContiguity;
    /** SNAP installs the snapshot without truncating the local log first (ZOOKEEPER-2832). */
    boolean snapWithoutTruncation;
    /** SNAP is acked before the install is durable (ZOOKEEPER-3642). */
    boolean snapAckedFromMemory;
    /** ReadIndex answers without a quorum heartbeat round (ZOOKEEPER-1675). */
    boolean syncWithoutQuorum;
    /** Leader treats an ack beyond a follower's unacked EPOCH record as illegal and steps down (ZOOKEEPER-4685). */
    boolean nonCumulativeAcks;
    /** Recovery sets the commit point to the last logged zxid, applying the uncommitted tail (ZOOKEEPER-1154). */
    boolean applyPastCommitMark;
    /**
     * A former leader whose commit point ran ahead of its disk (followers' disks committed) asks for a sync at once;
     * the sync from its durable point cuts committed records it applied (zkr's own, found by simulator seed 841).
     */
    boolean syncAheadOfDisk;
    /**
     * A follower takes what it holds durably as committed, without the leader's {@code Commit} (ZOOKEEPER-4394's
     * class: records streamed during a sync treated as committed at its end).
     */
    boolean commitWithoutLeaderCommit;
    /**
     * A follower counts the leader's durable point ({@code LeaderDurable}) as a quorum by itself, without its own
     * disk holding the same zxid.
     */
    boolean commitOnLeaderDurableAlone;

    /**
     * A new leader changes the membership before its EPOCH record committed: the single-server-change bug of Raft's
     * original proposal (docs/membership.md).
     */
    boolean reconfigBeforeEpochCommit;
    /** A pending membership change (and what follows it) commits on the previous membership's quorum. */
    boolean commitOnOldQuorum;
    /** A leader whose removal committed keeps leading. */
    boolean removedLeaderKeepsLeading;

    static Mutations of(String name) {
        Mutations m = new Mutations();
        switch (name) {
            case "ackBeforeFsync" -> m.ackBeforeFsync = true;
            case "epochAheadOfHistory" -> m.epochAheadOfHistory = true;
            case "diffWithoutContiguity" -> m.diffWithoutContiguity = true;
            case "snapWithoutTruncation" -> m.snapWithoutTruncation = true;
            case "snapAckedFromMemory" -> m.snapAckedFromMemory = true;
            case "syncWithoutQuorum" -> m.syncWithoutQuorum = true;
            case "nonCumulativeAcks" -> m.nonCumulativeAcks = true;
            case "applyPastCommitMark" -> m.applyPastCommitMark = true;
            case "syncAheadOfDisk" -> m.syncAheadOfDisk = true;
            case "commitWithoutLeaderCommit" -> m.commitWithoutLeaderCommit = true;
            case "commitOnLeaderDurableAlone" -> m.commitOnLeaderDurableAlone = true;
            case "reconfigBeforeEpochCommit" -> m.reconfigBeforeEpochCommit = true;
            case "commitOnOldQuorum" -> m.commitOnOldQuorum = true;
            case "removedLeaderKeepsLeading" -> m.removedLeaderKeepsLeading = true;
            default -> throw new IllegalArgumentException("no mutation " + name);
        }
        return m;
    }
}
