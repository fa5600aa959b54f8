package dev.zkr.server.round;

import dev.zkr.consensus.Entry;
import dev.zkr.consensus.Zxid;
import dev.zkr.storage.LogRecord;
import dev.zkr.storage.LogStore;
import dev.zkr.storage.StorageException;
import dev.zkr.storage.TruncateBelowCommitException;
import dev.zkr.storage.TxnLog;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The simulator's {@link LogStore}: one server's log in memory, outliving the server's incarnations. Records handed
 * over are volatile until a simulated fsync covering them completes after a seeded delay (group commit: one fsync
 * in flight at a time covers everything handed over before it started); the commit mark rides on the next fsync,
 * never causing one; truncation is synchronous and durable. A crash keeps the durable records plus, sometimes, a
 * prefix of the unsynced ones (they reached the page cache) and forgets the rest. Every hand-over checks the log's
 * shape (zxids increase, no gap inside an epoch) and the txn times (never decreasing).
 */
final class SimLog implements LogStore, dev.zkr.storage.SnapshotReceiver.Log {

    /** How the log asks the simulator for time: a fsync completes {@code delay} ms from now. */
    interface Clock {
        void after(long delay, String what, Runnable action);
    }

    private final String name;
    private final Clock clock;
    private final SplittableRandom random;
    /** Test-only bug: report records durable as soon as they are handed over (before the fsync). */
    private final boolean ackBeforeFsync;
    /** Every record the process handed over, durable ones first (after {@link #base}). */
    private final ArrayList<Entry> records = new ArrayList<>();
    /** The log starts after this zxid: records up to it were purged (covered by a snapshot) or an install restarted it. */
    private long base;
    /** For the simulator's checks only (a restart never reads them): the records purged or dropped by a restart. */
    private final ArrayList<Entry> archived = new ArrayList<>();
    long purged;
    private int durableCount;
    private long durableMark;
    private long volatileMark;
    /** The number of records the fsync in flight covers, -1 when none is in flight. */
    private int syncCovers = -1;
    private long syncMark;
    private TxnLog.DurabilityListener listener;
    /** Bumped by each crash: a fsync of an earlier incarnation completes into nothing. */
    private int incarnation;
    private long lastTxnTime;
    /** Told of every record handed over, decoded (the simulator's checks on what a server logs). */
    java.util.function.Consumer<dev.zkr.tree.TxnCodec.Entry> onAppend = e -> { };
    private boolean stalled;
    /** The new faults' random stream (null: no torn records, no disk full). */
    SplittableRandom faultRandom;
    /** A full disk: the next write fails and the log with it (as TxnLog's writer on ENOSPC). */
    private boolean full;
    /** The log failed: nothing more is written, no durability notice follows (until the process dies). */
    private boolean failed;
    /** A test-only bug of the new faults (ACK_WHEN_DISK_FULL, TORN_TAIL_CUT_TOO_FAR act here). */
    SimServer.FaultBug bug = SimServer.FaultBug.NONE;
    /** ACK_WHEN_DISK_FULL: records not written were reported durable (until the process dies). */
    private boolean lied;
    long fsyncs;
    long lostAtCrash;
    long keptAtCrash;
    long tornAtCrash;
    long failedWrites;

    SimLog(String name, Clock clock, SplittableRandom random, boolean ackBeforeFsync) {
        this.name = name;
        this.clock = clock;
        this.random = random;
        this.ackBeforeFsync = ackBeforeFsync;
    }

    // ---- LogStore ------------------------------------------------------------------------------------------------

    @Override
    public void appendAll(List<LogRecord> batch) {
        if (failed) {
            return; // TxnLog throws (failed earlier); the server already stops on the failure notice
        }
        if (full && !batch.isEmpty() && bug == SimServer.FaultBug.ACK_WHEN_DISK_FULL) {
            for (LogRecord r : batch) {
                checkTime(r);
                records.add(new Entry(r.zxid(), r.payload())); // "written": volatile, no fsync while full
            }
            lied = true;
            long z = lastZxid();
            int inc = incarnation;
            clock.after(0, name + " write on a full disk reported durable", () -> {
                if (inc == incarnation && listener != null) {
                    listener.durable(z);
                }
            });
            return;
        }
        if (full && !batch.isEmpty()) {
            failed = true;
            failedWrites++;
            int inc = incarnation;
            clock.after(0, name + " write fails: no space left on device", () -> {
                if (inc == incarnation && listener != null) {
                    listener.failed(new StorageException(name + ": no space left on device"));
                }
            });
            return;
        }
        long prev = lastZxid();
        for (LogRecord r : batch) {
            checkFollows(prev, r.zxid());
            prev = r.zxid();
        }
        for (LogRecord r : batch) {
            checkTime(r);
            records.add(new Entry(r.zxid(), r.payload()));
        }
        if (ackBeforeFsync && !batch.isEmpty()) {
            long z = prev;
            int inc = incarnation;
            clock.after(0, name + " early durable notice", () -> {
                if (inc == incarnation && listener != null) {
                    listener.durable(z);
                }
            });
        }
        startSync();
    }

    @Override
    public boolean hasQueued() {
        return syncCovers >= 0 && syncCovers < records.size();
    }

    @Override
    public void listen(TxnLog.DurabilityListener l) {
        this.listener = l;
    }

    @Override
    public void truncateAfter(long zxid) {
        if (zxid < durableMark) {
            throw new TruncateBelowCommitException(name + ": truncate after " + Zxid.str(zxid) + " below the commit mark "
                    + Zxid.str(durableMark));
        }
        // what was handed over before is written first, then cut: everything left is durable
        records.subList(indexAfter(zxid), records.size()).clear();
        durableCount = records.size();
        lastTxnTime = records.isEmpty() ? 0
                : dev.zkr.tree.TxnCodec.decode(records.get(records.size() - 1).payload()).header().time();
        if (syncCovers > records.size()) {
            syncCovers = records.size();
        }
    }

    @Override
    public void recordCommitMark(long zxid) {
        volatileMark = Math.max(volatileMark, zxid);
    }

    // ---- the simulator's controls ----------------------------------------------------------------------------------

    /** Holds every fsync (a stalled disk) until {@link #unstall}. */
    void stall() {
        stalled = true;
    }

    void unstall() {
        stalled = false;
        startSync();
    }

    /** The disk fills up: the next write fails (the records already written stay, fsyncs still complete). */
    void fill() {
        full = true;
    }

    /** Space again: a new incarnation can write. */
    void free() {
        full = false;
        startSync();
    }

    boolean full() {
        return full;
    }

    /**
     * The process died: the unsynced records are lost, except (one crash in three) a prefix of them that reached
     * the page cache; the listener and the fsync in flight die with the process.
     */
    void crash() {
        int unsynced = records.size() - durableCount;
        int kept = 0;
        if (unsynced > 0 && random.nextInt(3) == 0) {
            kept = random.nextInt(unsynced + 1);
        }
        if (faultRandom != null && kept < unsynced && faultRandom.nextInt(3) == 0) {
            tearNext(durableCount + kept);
        }
        records.subList(durableCount + kept, records.size()).clear();
        durableCount = records.size();
        lostAtCrash += unsynced - kept;
        keptAtCrash += kept;
        volatileMark = durableMark;
        lastTxnTime = durableCount == 0 ? 0
                : dev.zkr.tree.TxnCodec.decode(records.get(durableCount - 1).payload()).header().time();
        syncCovers = -1;
        listener = null;
        failed = false;
        lied = false;
        incarnation++;
    }

    /**
     * The record after the first {@code whole} reached the disk in part (torn): the real log's recovery must keep
     * exactly the {@code whole} records before it ({@link SimTornTail}).
     */
    private void tearNext(int whole) {
        List<Entry> image = List.copyOf(records.subList(0, whole + 1));
        List<Entry> recovered = SimTornTail.recover(image, faultRandom);
        if (bug == SimServer.FaultBug.TORN_TAIL_CUT_TOO_FAR && !recovered.isEmpty()) {
            recovered = recovered.subList(0, recovered.size() - 1);
        }
        if (!recovered.equals(image.subList(0, whole))) {
            throw new ServerSim.Violation(name + ": recovery of a torn record at " + Zxid.str(image.get(whole).zxid())
                    + " kept " + recovered.size() + " record(s) (last " + (recovered.isEmpty() ? "-"
                    : Zxid.str(recovered.get(recovered.size() - 1).zxid())) + "), not the " + whole + " before it");
        }
        tornAtCrash++;
    }

    // ---- snapshots: purge and restart -----------------------------------------------------------------------------

    /** The zxid the log starts after (0: it holds everything). */
    long base() {
        return base;
    }

    /**
     * Drops the durable records up to {@code zxid} (a snapshot covers them; a tiny retention keeps few before it),
     * as the Snapshotter purges whole segments. Returns the new base.
     */
    long purgeUpTo(long zxid) {
        int n = 0;
        while (n < durableCount && records.get(n).zxid() <= zxid) {
            n++;
        }
        if (n == 0) {
            return base;
        }
        base = records.get(n - 1).zxid();
        archived.addAll(records.subList(0, n));
        records.subList(0, n).clear();
        durableCount -= n;
        if (syncCovers >= 0) {
            syncCovers = Math.max(0, syncCovers - n);
        }
        purged += n;
        return base;
    }

    /** SNAP install (P3 c): every record dropped, durably; the log restarts after the snapshot {@code zxid}. */
    @Override
    public void restartAfter(long zxid) {
        if (lastZxid() >= zxid) {
            throw new IllegalStateException(name + " holds records up to " + Zxid.str(lastZxid())
                    + ": cannot restart after " + Zxid.str(zxid));
        }
        for (Entry e : records.subList(0, durableCount)) {
            if (e.zxid() <= durableMark) {
                archived.add(e); // history; what lay above the commit mark (a stale tail, or records the snapshot
            }                    // covers) goes with the restart, as TxnLog deletes it
        }
        records.clear();
        durableCount = 0;
        syncCovers = syncCovers >= 0 ? 0 : -1;
        base = zxid;
        durableMark = Math.max(durableMark, zxid);
        volatileMark = Math.max(volatileMark, zxid);
        lastTxnTime = 0;
    }

    /** Every record this log ever held durably and still holds or archived (the checks' view, not a restart's). */
    List<Entry> historyEntries() {
        List<Entry> all = new ArrayList<>(archived);
        all.addAll(records.subList(0, durableCount));
        return all;
    }

    /** The durable or archived record at {@code zxid}, or null. */
    Entry historyEntry(long zxid) {
        Entry e = durableEntry(zxid);
        if (e != null) {
            return e;
        }
        for (int i = archived.size() - 1; i >= 0; i--) {
            if (archived.get(i).zxid() == zxid) {
                return archived.get(i);
            }
        }
        return null;
    }

    /** The records handed over in ({@code after}, {@code upTo}], in order (the simulator's archive of applied txns). */
    List<Entry> entriesIn(long after, long upTo) {
        List<Entry> out = new ArrayList<>();
        for (Entry e : records) {
            if (e.zxid() > upTo) {
                break;
            }
            if (e.zxid() > after) {
                out.add(e);
            }
        }
        return out;
    }

    @Override
    public String toString() {
        return name;
    }

    /** The durable records (after a crash: what a restart reads). */
    List<Entry> durableEntries() {
        return List.copyOf(records.subList(0, durableCount));
    }

    /** What the log tells its user is durable: the truth, or (test-only bug) everything handed over. */
    @Override
    public long durableZxid() {
        return ackBeforeFsync || lied ? lastZxid() : trueDurableZxid();
    }

    /** The last zxid really durable (0 for none). */
    long trueDurableZxid() {
        return durableCount == 0 ? base : records.get(durableCount - 1).zxid();
    }

    /** The durable record at {@code zxid}, or null. */
    Entry durableEntry(long zxid) {
        int lo = 0;
        int hi = durableCount - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long z = records.get(mid).zxid();
            if (z == zxid) {
                return records.get(mid);
            } else if (z < zxid) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return null;
    }

    /** The commit mark on "disk". */
    long durableCommitMark() {
        return durableMark;
    }

    /** The last record handed over (0 for none). */
    @Override
    public long lastZxid() {
        return records.isEmpty() ? base : records.get(records.size() - 1).zxid();
    }

    // ---- internals -----------------------------------------------------------------------------------------------

    private void startSync() {
        if (syncCovers >= 0 || stalled || durableCount == records.size() || lied) {
            return;
        }
        syncCovers = records.size();
        syncMark = volatileMark;
        int inc = incarnation;
        long delay = random.nextInt(20) == 0 ? 20 + random.nextInt(80) : 1 + random.nextInt(6);
        clock.after(delay, "fsync " + name, () -> {
            if (inc == incarnation) {
                syncDone();
            }
        });
    }

    private void syncDone() {
        int covers = Math.min(syncCovers, records.size());
        syncCovers = -1;
        if (failed) {
            return; // a failed log tells nothing more durable (the process stops)
        }
        fsyncs++;
        if (covers > durableCount) {
            durableCount = covers;
            long last = records.get(covers - 1).zxid();
            durableMark = Math.max(durableMark, Math.min(syncMark, last));
            if (listener != null && !ackBeforeFsync) {
                listener.durable(last);
            }
        }
        startSync();
    }

    private int indexAfter(long zxid) {
        int i = records.size();
        while (i > 0 && records.get(i - 1).zxid() > zxid) {
            i--;
        }
        return i;
    }

    private void checkFollows(long prev, long next) {
        boolean ok = Zxid.epoch(next) == Zxid.epoch(prev) ? next == prev + 1
                : Zxid.epoch(next) > Zxid.epoch(prev) && Zxid.counter(next) == 0;
        if (!ok && !(prev == 0 && Zxid.counter(next) == 0)) {
            throw new StorageException(name + ": log shape broken: " + Zxid.str(next) + " after " + Zxid.str(prev));
        }
    }

    private void checkTime(LogRecord r) {
        dev.zkr.tree.TxnCodec.Entry e = dev.zkr.tree.TxnCodec.decode(r.payload());
        onAppend.accept(e);
        long time = e.header().time();
        if (time < lastTxnTime) {
            throw new ServerSim.Violation(name + ": txn time goes back at " + Zxid.str(r.zxid()) + ": " + time
                    + " after " + lastTxnTime);
        }
        lastTxnTime = time;
    }
}
