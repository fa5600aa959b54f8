package dev.zkr.server.replication;

import dev.zkr.consensus.Entry;
import dev.zkr.consensus.LogView;
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
        return new TxnLogView(log, newestSnapshot, followers ? TxnLogView.RECENT_RECORDS : 0);
    }

    /**
     * The server's log carries no membership record yet (docs/membership.md, What is built: the server wiring is the
     * next step), so its members are the static {@code server.N} lines and recovery reads no membership.
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
}
