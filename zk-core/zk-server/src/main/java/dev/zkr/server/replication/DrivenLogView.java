package dev.zkr.server.replication;

import dev.zkr.consensus.Entry;
import dev.zkr.consensus.LogView;
import dev.zkr.consensus.Membership;
import dev.zkr.consensus.MembershipCodec;
import dev.zkr.storage.TxnLog;

import java.util.List;
import java.util.function.LongSupplier;

/**
 * The replica's {@link LogView} as {@link ReplicaDriver} keeps it current: a log's readers see only what is
 * durable, so the stage tells the view of every record it hands to the log, of durability, truncations and a
 * snapshot install's restart. {@link TxnLogView} over the real log; the whole-server simulator has its own. Round
 * thread only.
 */
public interface DrivenLogView extends LogView {

    /**
     * The view over the real log ({@link TxnLogView}), as opened (everything in it durable); {@code newestSnapshot}
     * gives the zxid of the newest snapshot on disk (0 for none); {@code followers}: whether it may have followers to
     * catch up (an ensemble member), for which it keeps the most recent records in memory.
     */
    static DrivenLogView of(TxnLog log, LongSupplier newestSnapshot, boolean followers) {
        return new TxnLogView(log, newestSnapshot, followers ? TxnLogView.RECENT_RECORDS : 0, null, null);
    }

    /**
     * As above, for a server whose log carries membership records ({@link dev.zkr.tree.Txn.Membership}, read
     * through {@code members}); {@code atBase} is the membership the recovered tree records (null: the ensemble
     * never changed shape, its members are the configured ones). The records after the base up to the tree's zxid
     * repeat what it holds; the replica asks the membership only at or above its commit point, which is at or above
     * the tree's.
     */
    static DrivenLogView of(TxnLog log, LongSupplier newestSnapshot, boolean followers, Members members,
                            Membership atBase) {
        return new TxnLogView(log, newestSnapshot, followers ? TxnLogView.RECENT_RECORDS : 0, members, atBase);
    }

    /**
     * A log without membership records (the whole-server simulator's): its members are the static ones and recovery
     * reads no membership.
     */
    @Override
    default MembershipCodec membershipCodec() {
        return MembershipCodec.NONE;
    }

    @Override
    default List<Entry> membershipRecords() {
        return List.of();
    }

    /** {@code e} was handed to the log (after every earlier record). */
    void appended(Entry e);

    /** The log reported every record up to {@code zxid} durable. */
    void durable(long zxid);

    /** The log was durably cut after {@code zxid}. */
    void truncatedAfter(long zxid);

    /** The log restarted after snapshot {@code zxid} (SNAP install): it holds no record, its base is {@code zxid}. */
    void restartedAfter(long zxid);

    /** After {@link #restartedAfter}: the membership the installed snapshot records (a log with membership records). */
    default void snapshotMembership(Membership atSnapshot) {
    }
}
