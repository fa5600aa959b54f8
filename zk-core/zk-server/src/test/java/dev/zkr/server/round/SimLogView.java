package dev.zkr.server.round;

import dev.zkr.server.replication.DrivenLogView;
import dev.zkr.consensus.Entry;
import dev.zkr.consensus.EpochTable;

import java.util.ArrayList;
import java.util.List;

/**
 * The replica's {@link DrivenLogView} of a {@link SimLog} in one incarnation, as {@code TxnLogView} is over a
 * {@link dev.zkr.storage.TxnLog}: the durable records at open, then every record the stage announces
 * ({@link #appended}) as it hands it to the log stage, and its truncations; its start follows the log's purges
 * and snapshot installs (base).
 */
final class SimLogView implements DrivenLogView {

    private final ArrayList<Entry> entries;
    private final long commitMark;
    private EpochTable table;
    private final SimLog log;
    /** The zxid of the newest snapshot on this server's disk (0 for none). */
    private final java.util.function.LongSupplier newestSnapshot;
    /** Membership changes: the records' codec (the server's address book), or null: a log without such records. */
    private dev.zkr.consensus.MembershipCodec codec;
    /** The membership at the base (the recovered tree's, then an installed snapshot's); null: the static one. */
    private dev.zkr.consensus.Membership atBase;
    /** Test-only bug: a SNAP install forgets the membership the snapshot records (the replica falls back to the static one). */
    private boolean forgetSnapshotMembership;

    SimLogView(SimLog log) {
        this(log, () -> 0);
    }

    SimLogView(SimLog log, java.util.function.LongSupplier newestSnapshot) {
        this.log = log;
        this.newestSnapshot = newestSnapshot;
        this.entries = new ArrayList<>(log.durableEntries());
        this.commitMark = log.durableCommitMark();
    }

    /**
     * A log with membership records, as {@code TxnLogView} reads one: {@code codec} decodes them, {@code atBase} is
     * the membership the recovered tree records (null: the ensemble never changed shape).
     */
    void members(dev.zkr.consensus.MembershipCodec codec, dev.zkr.consensus.Membership atBase, boolean forgetSnapshotMembership) {
        this.codec = codec;
        this.atBase = atBase;
        this.forgetSnapshotMembership = forgetSnapshotMembership;
    }

    @Override
    public dev.zkr.consensus.MembershipCodec membershipCodec() {
        return codec != null ? codec : dev.zkr.consensus.MembershipCodec.NONE;
    }

    /** The membership records after the base (a scan, as {@code TxnLogView} collects them at open). */
    @Override
    public List<Entry> membershipRecords() {
        if (codec == null) {
            return List.of();
        }
        List<Entry> out = new ArrayList<>();
        for (Entry e : entriesAfter(baseZxid())) {
            if (codec.decode(e.payload()) != null) {
                out.add(e);
            }
        }
        return out;
    }

    @Override
    public dev.zkr.consensus.Membership baseMembership() {
        return atBase;
    }

    @Override
    public void snapshotMembership(dev.zkr.consensus.Membership atSnapshot) {
        if (!forgetSnapshotMembership) {
            atBase = atSnapshot;
        }
    }

    /** Drops the entries the log purged (up to its base): the log's start moves while the incarnation runs. */
    private void prune() {
        long base = log.base();
        if (!entries.isEmpty() && entries.get(0).zxid() <= base) {
            entries.removeIf(e -> e.zxid() <= base);
            table = null;
        }
    }

    /** Runs with membership changes: told of every record handed to the log (a membership is in force from then). */
    java.util.function.Consumer<Entry> onAppended;

    @Override
    public void appended(Entry e) {
        if (onAppended != null) {
            onAppended.accept(e);
        }
        entries.add(e);
        table = null;
    }

    @Override
    public void durable(long zxid) {
        // every record is in the list already: nothing to track
    }

    /** A snapshot install restarted the log after {@code zxid} (never in the simulator: no purge, no SNAP). */
    @Override
    public void restartedAfter(long zxid) {
        atBase = null;
        entries.clear();
        table = null;
    }

    @Override
    public void truncatedAfter(long zxid) {
        entries.removeIf(e -> e.zxid() > zxid);
        table = null;
    }

    @Override
    public long lastZxid() {
        prune();
        return entries.isEmpty() ? log.base() : Math.max(entries.get(entries.size() - 1).zxid(), log.base());
    }

    @Override
    public long baseZxid() {
        return log.base();
    }

    @Override
    public long snapshotZxid() {
        return Math.max(0, newestSnapshot.getAsLong());
    }

    @Override
    public List<Entry> entriesAfter(long zxid) {
        prune();
        List<Entry> out = new ArrayList<>();
        for (Entry e : entries) {
            if (e.zxid() > zxid) {
                out.add(e);
            }
        }
        return out;
    }

    @Override
    public EpochTable epochTable() {
        prune();
        if (table == null) {
            table = EpochTable.of(entries).above(log.base());
        }
        return table;
    }

    @Override
    public long commitMark() {
        return commitMark;
    }
}
