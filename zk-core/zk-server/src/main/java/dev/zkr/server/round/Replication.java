package dev.zkr.server.round;

import dev.zkr.consensus.ReplicaMessage;
import dev.zkr.consensus.RoleInfo;
import dev.zkr.server.peer.SnapshotChunk;
import dev.zkr.server.peer.SnapshotRequest;
import dev.zkr.tree.Txn;
import dev.zkr.tree.TxnCodec;
import dev.zkr.tree.TxnHeader;

/**
 * The round's view of replication: decides when a logged txn is committed and who may sequence writes. Chosen when
 * the server is assembled ({@code Assembler}); every method is called inside {@link Core}'s rounds, under its round
 * lock (docs/architecture.md, Threads). The implementations live in {@code dev.zkr.server.replication}: a server
 * runs a consensus replica ({@code ReplicaDriver}: one member when standalone, which elects itself, logs its
 * {@code EPOCH} record and commits on local durability) or, as the standalone fast path, {@code QuorumOfOne}
 * (locally durable is committed). Not to be confused with {@code dev.zkr.consensus.Quorum}, the consensus core's
 * majority arithmetic.
 */
public interface Replication {

    /** One replica tick (docs/replication.md, Timers: heartbeat and election timeouts are counted in ticks). */
    int TICK_MS = 10;

    /** What a round's consensus work hands back to the pipeline. */
    interface Stream {
        /** A logged record the pipeline did not sequence itself, in zxid order: apply it once committed. */
        void add(TxnCodec.Entry e);

        /** The log was cut after {@code zxid}: records after it will never be applied. */
        void truncateAfter(long zxid);

        /** The read point of {@link #readIndex} {@code ctx} ({@code 0}: refused, this server does not lead). */
        void readState(long ctx, long readZxid);

        /**
         * A snapshot from the leader is installed (SNAP sync): the tree must become {@code loaded}, as of
         * {@code zxid}; records given to {@link #add} afterwards follow it.
         */
        default void installed(dev.zkr.tree.DataTree loaded, long zxid) {
            throw new IllegalStateException("this server cannot install a snapshot");
        }
    }

    /** Logs a txn the core sequenced (its zxid follows the previous one). */
    void append(TxnHeader header, Txn txn);

    /** The local log reported every record up to and including {@code zxid} durable. */
    void durable(long zxid);

    /**
     * Does this round's consensus work: hands records to the log stage, tells {@code stream} of records the core
     * did not sequence itself (in zxid order, before any later record of the core's), of truncations and of read
     * points, and returns the commit point: every record up to it may be applied.
     */
    long drive(Stream stream);

    /** True while this server leads and may sequence writes (once the tree applied {@link #serviceStart()}). */
    boolean inService();

    /** The zxid the tree must have applied before this leader prepares its first write (its EPOCH record). */
    long serviceStart();

    /** The role as of the last round. */
    RoleInfo role();

    /** Asks for a linearizable read point; answered through {@link Stream#readState} in a later drive. */
    void readIndex(long ctx);

    /**
     * Time passed: {@code now} in millis (a replica with peers counts its ticks from it). Returns the ticks counted
     * (a paused server drops the ones it missed).
     */
    default int tick(long now) {
        return 0;
    }

    /** When the next {@link #tick} is due (millis); never for a server without peers. */
    default long nextTick() {
        return Long.MAX_VALUE;
    }

    /** A consensus message from a peer. */
    default void step(int from, ReplicaMessage m) {
    }

    /** A snapshot transfer message from a peer ({@code SnapshotRequest} or {@code SnapshotChunk}). */
    default void snapshotMessage(int from, Object m, Stream stream) {
    }

    /**
     * A message from a peer, if it is the consensus core's: a consensus message ({@link #step}) or a snapshot
     * transfer's ({@link #snapshotMessage}). False for any other (a server-level message).
     */
    default boolean peerMessage(int from, Object m, Stream stream) {
        if (m instanceof ReplicaMessage cm) {
            step(from, cm);
            return true;
        }
        if (m instanceof SnapshotRequest || m instanceof SnapshotChunk) {
            snapshotMessage(from, m, stream);
            return true;
        }
        return false;
    }

    /**
     * The membership record that makes {@code change} of the membership in force (docs/membership.md), checked as
     * the one change this leader may make now; the caller sequences it as a txn.
     *
     * @throws dev.zkr.client.ZkException.ReconfigInProgress a change is pending (ask again once it committed)
     * @throws dev.zkr.client.ZkException.NewConfigNoQuorum  the member to promote has not caught up
     * @throws dev.zkr.client.ZkException.BadArguments       the change does not apply to the membership (a member
     *                                                       added twice, a server id used before, the last voter
     *                                                       removed)
     * @throws dev.zkr.client.ZkException.ReconfigDisabled   a server without membership changes (standalone)
     * @throws IllegalStateException                         not an in-service leader
     */
    default Txn.Membership membershipAfter(dev.zkr.client.MembershipChange change) {
        throw new dev.zkr.client.ZkException.ReconfigDisabled(null, "a standalone server's membership cannot change");
    }

    /**
     * Leader: the record promoting a learner (not an observer) that caught up, if one did and no change is pending;
     * else null.
     */
    default Txn.Membership promotionDue() {
        return null;
    }

    /**
     * The version of the membership in force, as ZooKeeper's reconfig names it: the zxid of its record when that is
     * in the log, 0 when the membership in force is the log's base (the member lines, or the snapshot's record, whose
     * zxid the tree holds); -1 while a change is pending (in the log, not committed). Round only.
     */
    default long membershipRecordZxid() {
        return 0;
    }

    /** The membership in force, as a record with the members' addresses; null for a standalone server. Round only. */
    default Txn.Membership membership() {
        return null;
    }

    /**
     * Whether this server acts as a member for its clients (docs/membership.md): a voter of its current or committed
     * membership, or a learner or observer that hears from a leader. A server that is not (its removal committed or
     * it was removed while cut off, or it joins and was not added yet) forwards no client request; its connections
     * are closed as a leaderless server's are, so clients move to the members. Always true for a server whose
     * membership never changes. Round only.
     */
    default boolean member() {
        return true;
    }

    default void peerUp(int id) {
    }

    default void peerDown(int id) {
    }
}
