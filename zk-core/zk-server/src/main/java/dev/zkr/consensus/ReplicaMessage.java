package dev.zkr.consensus;

import java.util.Arrays;

/**
 * The messages replicas send each other (docs/replication.md, Messages), named apart from {@code dev.zkr.wire.Message}
 * (the client protocol's records) and {@code dev.zkr.server.peer.ServerMessage} (the server-level peer messages).
 * Every message carries the sender's epoch; the sender's id comes with it from the transport ({@link Replica#step}).
 * Zxids print as "e.c".
 */
public sealed interface ReplicaMessage {
    long epoch();

    /** Candidate asks whether it could win {@code epoch} (nothing persisted). */
    record PreVote(long epoch, long lastZxid) implements ReplicaMessage {
        @Override
        public String toString() {
            return "PreVote(" + epoch + "," + Zxid.str(lastZxid) + ")";
        }
    }

    /** Answer to a {@link PreVote} for {@code forEpoch}; {@code epoch} is the voter's accepted epoch. */
    record PreVoteAck(long epoch, long forEpoch, boolean granted) implements ReplicaMessage {
        @Override
        public String toString() {
            return "PreVoteAck(" + epoch + "," + forEpoch + "," + (granted ? "yes" : "no") + ")";
        }
    }

    /**
     * Candidate of {@code epoch} with its last durable zxid; a grant is persisted before it is sent (P1). A
     * {@code transfer} vote follows the leader's {@link TimeoutNow}: voters that still hear that leader consider it.
     */
    record Vote(long epoch, long lastZxid, boolean transfer) implements ReplicaMessage {
        public Vote(long epoch, long lastZxid) {
            this(epoch, lastZxid, false);
        }

        @Override
        public String toString() {
            return "Vote(" + epoch + "," + Zxid.str(lastZxid) + (transfer ? ",transfer" : "") + ")";
        }
    }

    /** Leader to its most up-to-date follower: campaign now (leadership hand-over, Raft thesis §3.10). */
    record TimeoutNow(long epoch) implements ReplicaMessage {
        @Override
        public String toString() {
            return "TimeoutNow(" + epoch + ")";
        }
    }

    /** Answer to a {@link Vote}; a refusal from a higher epoch carries that epoch. */
    record VoteAck(long epoch, boolean granted) implements ReplicaMessage {
        @Override
        public String toString() {
            return "VoteAck(" + epoch + "," + (granted ? "yes" : "no") + ")";
        }
    }

    /**
     * Follower to leader: its last durable zxid, its commit point and the last durable zxid of each epoch it holds
     * above its commit point; {@code syncId} names this request so a stale {@link SyncStart} is ignored.
     */
    record FollowerInfo(long epoch, long syncId, long lastZxid, long commitZxid, EpochTable table) implements ReplicaMessage {
        @Override
        public String toString() {
            return "FollowerInfo(" + epoch + ",s" + syncId + "," + Zxid.str(lastZxid) + ",c" + Zxid.str(commitZxid)
                    + "," + table + ")";
        }
    }

    /** Leader to follower: DIFF / TRUNC / SNAP at {@code zxid}; {@link Propose}s after {@code zxid} follow. */
    record SyncStart(long epoch, long syncId, SyncMode mode, long zxid) implements ReplicaMessage {
        @Override
        public String toString() {
            return "SyncStart(" + epoch + ",s" + syncId + "," + mode + "," + Zxid.str(zxid) + ")";
        }
    }

    /** One entry, accepted only right after {@code prevZxid} (contiguity). Used for sync and live proposals. */
    record Propose(long epoch, long prevZxid, long zxid, byte[] payload) implements ReplicaMessage {
        Entry entry() {
            return new Entry(zxid, payload);
        }

        @Override
        public String toString() {
            return "Propose(" + epoch + "," + Zxid.str(prevZxid) + "," + Zxid.str(zxid) + "#"
                    + Integer.toHexString(Arrays.hashCode(payload)) + ")";
        }
    }

    /** Follower's log is durable through {@code zxid} (cumulative). */
    record Ack(long epoch, long zxid) implements ReplicaMessage {
        @Override
        public String toString() {
            return "Ack(" + epoch + "," + Zxid.str(zxid) + ")";
        }
    }

    /**
     * The leader's own log is durable through {@code zxid} (cumulative), sent when its disk reports it and a quorum
     * is two members (2 or 3 voters): a follower whose disk holds the same zxid knows it is on a quorum and commits it
     * a round trip before the leader's {@link Commit} (docs/replication.md, Commit).
     */
    record LeaderDurable(long epoch, long zxid) implements ReplicaMessage {
        @Override
        public String toString() {
            return "LeaderDurable(" + epoch + "," + Zxid.str(zxid) + ")";
        }
    }

    /** A message only the leader of its epoch sends (a replica that gets one knows who leads). */
    static boolean fromLeader(ReplicaMessage m) {
        return m instanceof Heartbeat || m instanceof Propose || m instanceof SyncStart || m instanceof Commit
                || m instanceof LeaderDurable;
    }

    /** Everything through {@code zxid} is committed. */
    record Commit(long epoch, long zxid) implements ReplicaMessage {
        @Override
        public String toString() {
            return "Commit(" + epoch + "," + Zxid.str(zxid) + ")";
        }
    }

    /**
     * Leader's liveness beat: commit point, read round (ReadIndex), and the last zxid sent to this follower in sync
     * {@code syncId} (a follower behind it lost a message and asks for a new sync).
     */
    record Heartbeat(long epoch, long commitZxid, long round, long syncId, long lastSent) implements ReplicaMessage {
        @Override
        public String toString() {
            return "Heartbeat(" + epoch + ",c" + Zxid.str(commitZxid) + ",r" + round + ",s" + syncId + ","
                    + Zxid.str(lastSent) + ")";
        }
    }

    /**
     * Answer to a {@link Heartbeat} of read round {@code round} (-1 when it tells a stale leader the newer epoch). A
     * synced follower repeats its durable point as {@code ackZxid} (else {@link Zxid#NONE}), so a lost {@link Ack}
     * costs one heartbeat, not liveness.
     */
    record HeartbeatAck(long epoch, long round, long ackZxid) implements ReplicaMessage {
        public HeartbeatAck(long epoch, long round) {
            this(epoch, round, Zxid.NONE);
        }

        @Override
        public String toString() {
            return "HeartbeatAck(" + epoch + ",r" + round + (ackZxid == Zxid.NONE ? "" : "," + Zxid.str(ackZxid))
                    + ")";
        }
    }
}
