package dev.zkr.server.replication;

import dev.zkr.consensus.Entry;
import dev.zkr.consensus.EpochTable;
import dev.zkr.consensus.LogView;
import dev.zkr.consensus.Membership;
import dev.zkr.consensus.MembershipCodec;
import dev.zkr.consensus.Zxid;
import dev.zkr.storage.LogReader;
import dev.zkr.storage.LogRecord;
import dev.zkr.storage.TxnLog;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The consensus core's {@link LogView} over the real {@link TxnLog}. The log's readers see only durable records, so
 * the view keeps the records handed to the log but not yet reported durable ({@link #appended}, dropped again by
 * {@link #durable}); the epoch table is built by one scan at open and kept up to date by the driver's calls.
 * Round state: the driver tells it of appends, durability and truncations inside rounds (docs/architecture.md,
 * Threads).
 */
final class TxnLogView implements DrivenLogView {

    private final TxnLog log;
    private final LongSupplier newestSnapshot;
    private final long commitMark;
    /** Epochs before the one of {@link #last}, each with its last zxid. */
    private EpochTable closed;
    /** The last zxid handed to the log (durable or not), or the log's start when it holds no record. */
    private long last;
    /** Records handed to the log and not yet reported durable, in zxid order. */
    private final ArrayDeque<Entry> undurable = new ArrayDeque<>();
    /**
     * The most recent records handed to the log (durable or not), contiguous, in zxid order: a follower a little
     * behind is sent them from memory, not by scanning a log segment from its start inside a round (ZooKeeper
     * keeps its committedLog for the same reason). Holds every record after {@link #recentBase}. A standalone server
     * has no follower to send them to and keeps none ({@link #recentRecords} 0): at most 32 MB of heap saved.
     */
    private final ArrayDeque<Entry> recent = new ArrayDeque<>();
    private long recentBase = -1;
    private long recentBytes;
    static final int RECENT_RECORDS = 50_000;
    static final long RECENT_BYTES = 32L << 20;
    private final int recentRecords;
    /** The membership codec and address book, or null: a log read without membership records. */
    private final Members members;
    /** The membership at the base (the recovered tree's, then an installed snapshot's), null: the static one. */
    private Membership atBase;
    /** The membership records found at open (the replica reads them once, at recovery). */
    private final List<Entry> membershipRecords = new ArrayList<>();

    /**
     * A view of {@code log} as opened (everything in it durable). {@code newestSnapshot} gives the zxid of the newest
     * snapshot on disk (0 for none).
     */
    TxnLogView(TxnLog log, LongSupplier newestSnapshot) {
        this(log, newestSnapshot, RECENT_RECORDS, null, null);
    }

    /**
     * As above, keeping at most {@code recentRecords} recent records in memory (0: none, for a standalone server);
     * {@code members} null for a log read without membership records, else their codec, and {@code atBase} the
     * membership at the base ({@link DrivenLogView#of(TxnLog, LongSupplier, boolean, Members, Membership)}).
     */
    TxnLogView(TxnLog log, LongSupplier newestSnapshot, int recentRecords, Members members, Membership atBase) {
        this.members = members;
        this.atBase = atBase;
        this.recentRecords = recentRecords;
        this.log = log;
        this.newestSnapshot = newestSnapshot;
        this.commitMark = log.commitMarkAtOpen();
        EpochTable.Builder b = new EpochTable.Builder();
        long base = log.startsAfterZxid();
        long lastRead = base;
        try (LogReader records = log.read(base)) {
            while (records.hasNext()) {
                LogRecord r = records.next();
                if (Zxid.epoch(r.zxid()) != Zxid.epoch(lastRead) && lastRead > base) {
                    b.add(lastRead);
                }
                lastRead = r.zxid();
                if (members != null && members.decode(r.payload()) != null) {
                    membershipRecords.add(new Entry(r.zxid(), r.payload()));
                }
            }
        }
        this.closed = b.build();
        this.last = Math.max(lastRead, log.lastZxid());
    }

    // ---- what the driver tells it (inside a round) ---------------------------------------------------------------

    @Override
    public void appended(Entry e) {
        if (e.zxid() <= last) {
            throw new IllegalArgumentException("append " + Zxid.str(e.zxid()) + " after " + Zxid.str(last));
        }
        if (Zxid.epoch(e.zxid()) != Zxid.epoch(last) && last > log.startsAfterZxid()) {
            closed = withLast(closed, last);
        }
        long before = last;
        last = e.zxid();
        undurable.addLast(e);
        if (recentRecords == 0) {
            return;
        }
        if (recentBase < 0) {
            recentBase = before;
        }
        recent.addLast(e);
        recentBytes += e.payload().length;
        while (recent.size() > recentRecords || recentBytes > RECENT_BYTES) {
            Entry old = recent.pollFirst();
            recentBytes -= old.payload().length;
            recentBase = old.zxid();
        }
    }

    @Override
    public void durable(long zxid) {
        while (!undurable.isEmpty() && undurable.peekFirst().zxid() <= zxid) {
            undurable.pollFirst();
        }
    }

    @Override
    public void truncatedAfter(long zxid) {
        EpochTable table = epochTable().clippedTo(zxid);
        undurable.removeIf(e -> e.zxid() > zxid);
        while (!recent.isEmpty() && recent.peekLast().zxid() > zxid) {
            recentBytes -= recent.pollLast().payload().length;
        }
        if (recent.isEmpty() || recentBase > zxid) {
            recent.clear();
            recentBytes = 0;
            recentBase = -1;
        }
        if (table.size() == 0) {
            closed = EpochTable.EMPTY;
        } else {
            EpochTable.Builder b = new EpochTable.Builder();
            for (int i = 0; i < table.size() - 1; i++) {
                b.add(table.lastAt(i));
            }
            closed = b.build();
        }
        last = zxid;
    }

    @Override
    public void restartedAfter(long zxid) {
        atBase = null;
        undurable.clear();
        recent.clear();
        recentBytes = 0;
        recentBase = -1;
        closed = EpochTable.EMPTY;
        last = zxid;
    }

    @Override
    public void snapshotMembership(Membership atSnapshot) {
        atBase = atSnapshot;
    }

    @Override
    public MembershipCodec membershipCodec() {
        return members != null ? members : MembershipCodec.NONE;
    }

    @Override
    public Membership baseMembership() {
        return atBase;
    }

    @Override
    public List<Entry> membershipRecords() {
        return List.copyOf(membershipRecords);
    }

    /** How many recent records it holds in memory now (tests). */
    int recentHeld() {
        return recent.size();
    }

    // ---- LogView -------------------------------------------------------------------------------------------------

    @Override
    public long lastZxid() {
        return Math.max(last, baseZxid());
    }

    @Override
    public long baseZxid() {
        return log.startsAfterZxid();
    }

    @Override
    public long snapshotZxid() {
        return Math.max(0, newestSnapshot.getAsLong());
    }

    @Override
    public List<Entry> entriesAfter(long zxid) {
        if (recentBase >= 0 && zxid >= recentBase) {
            List<Entry> out = new ArrayList<>();
            for (Entry e : recent) {
                if (e.zxid() > zxid) {
                    out.add(e);
                }
            }
            return out;
        }
        List<Entry> out = new ArrayList<>();
        long onDisk = zxid;
        try (LogReader records = log.read(zxid)) {
            while (records.hasNext()) {
                LogRecord r = records.next();
                if (r.zxid() > last) {
                    break;
                }
                out.add(new Entry(r.zxid(), r.payload()));
                onDisk = r.zxid();
            }
        }
        for (Entry e : undurable) {
            if (e.zxid() > onDisk) {
                out.add(e);
            }
        }
        return out;
    }

    @Override
    public EpochTable epochTable() {
        long base = baseZxid();
        EpochTable all = last > base ? withLast(closed, last) : closed;
        return all.above(base);
    }

    @Override
    public long commitMark() {
        return commitMark;
    }

    private static EpochTable withLast(EpochTable table, long zxid) {
        EpochTable.Builder b = new EpochTable.Builder();
        for (int i = 0; i < table.size(); i++) {
            b.add(table.lastAt(i));
        }
        return b.add(zxid).build();
    }
}
