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

    SimLogView(SimLog log) {
        this(log, () -> 0);
    }

    SimLogView(SimLog log, java.util.function.LongSupplier newestSnapshot) {
        this.log = log;
        this.newestSnapshot = newestSnapshot;
        this.entries = new ArrayList<>(log.durableEntries());
        this.commitMark = log.durableCommitMark();
    }

    /** Drops the entries the log purged (up to its base): the log's start moves while the incarnation runs. */
    private void prune() {
        long base = log.base();
        if (!entries.isEmpty() && entries.get(0).zxid() <= base) {
            entries.removeIf(e -> e.zxid() <= base);
            table = null;
        }
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
