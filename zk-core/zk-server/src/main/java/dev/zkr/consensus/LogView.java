package dev.zkr.consensus;

import java.util.List;

/**
 * Read-only view of a replica's log as the {@link Replica} needs it (etcd's Storage role). It shows every record the
 * driver has handed to the log, durable or not: the driver executes a {@link Ready}'s truncation and appends before
 * calling {@link Replica#advance()}. At construction of a replica (recovery) everything it shows must be durable.
 */
public interface LogView {
    /** The last record's zxid; {@link #baseZxid()} if the log holds no record after its base. */
    long lastZxid();

    /** Every record after the base is in the log; records up to it live only in the snapshot (0 for none). */
    long baseZxid();

    /** The newest snapshot that can be sent to a follower (&ge; base, &le; commit), 0 for none. */
    long snapshotZxid();

    /** The records after {@code zxid} (&ge; base), in order. */
    List<Entry> entriesAfter(long zxid);

    /** The epoch table of the records after the base. */
    EpochTable epochTable();

    /** The durable commit mark at recovery (recovery applies up to max(snapshot, mark), P7). */
    long commitMark();

    /** How this log's records carry a membership (docs/membership.md); {@link MembershipCodec#RAW} by default. */
    default MembershipCodec membershipCodec() {
        return MembershipCodec.RAW;
    }

    /**
     * The membership in force at the base, as the snapshot there records it; null when the log has never held a
     * membership record (the members are then {@link ReplicaConfig#members()}).
     */
    default Membership baseMembership() {
        return null;
    }

    /** The membership records after the base, in order (read once, at recovery). By default a scan of the log. */
    default List<Entry> membershipRecords() {
        MembershipCodec codec = membershipCodec();
        return entriesAfter(baseZxid()).stream().filter(e -> codec.decode(e.payload()) != null).toList();
    }
}
