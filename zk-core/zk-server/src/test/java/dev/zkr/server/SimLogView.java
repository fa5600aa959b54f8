package dev.zkr.server;

import dev.zkr.consensus.Entry;
import dev.zkr.consensus.EpochTable;

import java.util.ArrayList;
import java.util.List;

/**
 * The replica's {@link DrivenLogView} of a {@link SimLog} in one incarnation, as {@link TxnLogView} is over a
 * {@link dev.zkr.storage.TxnLog}: the durable records at open, then every record the stage announces
 * ({@link #appended}) as it hands it to the log stage, and its truncations. No snapshots, no purge (base 0).
 */
final class SimLogView implements DrivenLogView {

    private final ArrayList<Entry> entries;
    private final long commitMark;
    private EpochTable table;

    SimLogView(SimLog log) {
        this.entries = new ArrayList<>(log.durableEntries());
        this.commitMark = log.durableCommitMark();
    }

    @Override
    public void appended(Entry e) {
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
        return entries.isEmpty() ? 0 : entries.get(entries.size() - 1).zxid();
    }

    @Override
    public long baseZxid() {
        return 0;
    }

    @Override
    public long snapshotZxid() {
        return 0;
    }

    @Override
    public List<Entry> entriesAfter(long zxid) {
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
        if (table == null) {
            table = EpochTable.of(entries);
        }
        return table;
    }

    @Override
    public long commitMark() {
        return commitMark;
    }
}
