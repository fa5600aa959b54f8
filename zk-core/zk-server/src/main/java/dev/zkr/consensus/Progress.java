package dev.zkr.consensus;

/** The leader's view of one follower. */
final class Progress {
    /** PROBE: waiting for its FollowerInfo. REPLICATE: synced in {@link #syncId}, live proposals flow. */
    enum Mode { PROBE, REPLICATE }

    Mode mode = Mode.PROBE;
    long syncId = -1;
    /** The last zxid sent in the current sync. */
    long lastSent = Zxid.NONE;
    /** The highest zxid it acked in this epoch (cumulative: everything up to it is durable there). */
    long match;
    /** Where this sync's stream ended (ZooKeeper's NEWLEADER point); used only by a test mutation. */
    long syncPoint;
    boolean syncPointAcked;

    @Override
    public String toString() {
        return mode + "/s" + syncId + "/sent " + Zxid.str(lastSent) + "/match " + Zxid.str(match);
    }
}
