package dev.zkr.consensus;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * An in-memory disk for one replica: a durable image and a volatile image (what the process sees). Appends, snapshot
 * installs and commit marks are volatile until an fsync covering them completes; a crash keeps the durable image
 * plus, optionally, a torn prefix of the unsynced writes. Metadata and truncation are synchronous (P1, P2).
 * Implements {@link LogView} over the volatile image and checks the log shape on every write.
 */
final class SimDisk implements LogView {
    /** One image of the log: snapshot, base, records after it, commit mark. */
    static final class Image {
        long snapshot;
        long base;
        long commitMark;
        /** The membership the snapshot records (null: none recorded, the static members). */
        Membership snapshotMembership;
        final ArrayList<Entry> entries = new ArrayList<>();

        Image copy() {
            Image i = new Image();
            i.snapshot = snapshot;
            i.snapshotMembership = snapshotMembership;
            i.base = base;
            i.commitMark = commitMark;
            i.entries.addAll(entries);
            return i;
        }

        long last() {
            return entries.isEmpty() ? base : entries.get(entries.size() - 1).zxid();
        }

        /** Whether the image holds {@code zxid} (a record, or covered by the snapshot). */
        boolean covers(long zxid) {
            return zxid <= snapshot || find(zxid) != null;
        }

        Entry find(long zxid) {
            int lo = 0;
            int hi = entries.size() - 1;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                long z = entries.get(mid).zxid();
                if (z == zxid) {
                    return entries.get(mid);
                } else if (z < zxid) {
                    lo = mid + 1;
                } else {
                    hi = mid - 1;
                }
            }
            return null;
        }

        /** Index of the first record after {@code zxid}. */
        int indexAfter(long zxid) {
            int lo = 0;
            int hi = entries.size();
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (entries.get(mid).zxid() <= zxid) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo;
        }

        void truncateAfter(long zxid) {
            int from = indexAfter(zxid);
            entries.subList(from, entries.size()).clear();
        }

        /** The membership in force at {@code zxid} (&ge; base): the last record at or before it, else the snapshot's. */
        Membership membershipAt(long zxid) {
            Membership m = snapshotMembership;
            for (Entry e : entries) {
                if (e.zxid() > zxid) {
                    break;
                }
                Membership r = MembershipCodec.RAW.decode(e.payload());
                if (r != null) {
                    m = r;
                }
            }
            return m;
        }

        void install(long s, Membership m) {
            snapshot = s;
            snapshotMembership = m;
            base = s;
            entries.subList(0, indexAfter(s)).clear(); // records after s stay unless truncated first (P3 a)
        }
    }

    private sealed interface Op permits AppendOp, InstallOp, MarkOp {}

    private record AppendOp(List<Entry> entries) implements Op {}

    private record InstallOp(long snapshot, Membership membership) implements Op {}

    private record MarkOp(long commit) implements Op {}

    private record Pending(long seq, Op op) {}

    private final String name;
    private Meta meta = Meta.FRESH;
    private Image durable = new Image();
    private Image volatileImage = new Image();
    private final ArrayList<Pending> pending = new ArrayList<>();
    private long seq;
    private EpochTable table;
    long installsDone;

    SimDisk(String name) {
        this.name = name;
    }

    // ---------------------------------------------------------------- LogView (volatile image)

    @Override
    public long lastZxid() {
        return volatileImage.last();
    }

    @Override
    public long baseZxid() {
        return volatileImage.base;
    }

    @Override
    public long snapshotZxid() {
        return volatileImage.snapshot;
    }

    @Override
    public List<Entry> entriesAfter(long zxid) {
        if (zxid < volatileImage.base) {
            throw new IllegalArgumentException(name + ": entries after " + Zxid.str(zxid) + " are purged (base "
                    + Zxid.str(volatileImage.base) + ")");
        }
        return List.copyOf(volatileImage.entries.subList(volatileImage.indexAfter(zxid), volatileImage.entries.size()));
    }

    @Override
    public EpochTable epochTable() {
        if (table == null) {
            table = EpochTable.of(volatileImage.entries);
        }
        return table;
    }

    @Override
    public long commitMark() {
        return volatileImage.commitMark;
    }

    @Override
    public Membership baseMembership() {
        return volatileImage.snapshotMembership;
    }

    private boolean lastMembershipKnown;
    private Membership lastMembership;

    /** The membership the log as the process sees it ends with ({@code initial} if it records none). */
    Membership lastMembership(Membership initial) {
        if (!lastMembershipKnown) {
            lastMembership = volatileImage.membershipAt(Long.MAX_VALUE);
            lastMembershipKnown = true;
        }
        return lastMembership != null ? lastMembership : initial;
    }

    // ---------------------------------------------------------------- writes

    Meta meta() {
        return meta;
    }

    void persistMeta(Meta m) {
        if (m.acceptedEpoch() < meta.acceptedEpoch()) {
            throw new SimFailure(name + ": acceptedEpoch decreases " + meta + " -> " + m);
        }
        meta = m;
    }

    /** ftruncate + fsync: everything written before becomes durable, then both images lose records after z. */
    void truncateAfter(long zxid) {
        flushAll();
        volatileImage.truncateAfter(zxid);
        durable.truncateAfter(zxid);
        table = null;
        lastMembershipKnown = false;
    }

    /** Starts a snapshot install (durable when an fsync covers it); returns the op's sequence number. */
    long install(long snapshot, Membership membership) {
        volatileImage.install(snapshot, membership);
        checkShape(volatileImage);
        table = null;
        lastMembershipKnown = false;
        return add(new InstallOp(snapshot, membership));
    }

    long append(List<Entry> entries) {
        long prev = volatileImage.last();
        for (Entry e : entries) {
            checkFollows(prev, e.zxid(), volatileImage.base == prev && volatileImage.entries.isEmpty());
            prev = e.zxid();
        }
        volatileImage.entries.addAll(entries);
        table = null;
        for (Entry e : entries) {
            Membership m = MembershipCodec.RAW.decode(e.payload());
            if (m != null) {
                lastMembership = m;
            }
        }
        return add(new AppendOp(List.copyOf(entries)));
    }

    long mark(long commit) {
        volatileImage.commitMark = commit;
        return add(new MarkOp(commit));
    }

    long lastSeq() {
        return seq;
    }

    private long add(Op op) {
        pending.add(new Pending(++seq, op));
        return seq;
    }

    /** An fsync issued after op {@code upTo} completed: returns the installs it made durable. */
    List<Long> completeThrough(long upTo) {
        List<Long> installs = new ArrayList<>();
        while (!pending.isEmpty() && pending.get(0).seq() <= upTo) {
            Op op = pending.remove(0).op();
            if (op instanceof InstallOp i) {
                installs.add(i.snapshot());
                installsDone++;
            }
            applyTo(durable, op);
        }
        return installs;
    }

    private void flushAll() {
        for (Pending p : pending) {
            applyTo(durable, p.op());
        }
        pending.clear();
    }

    private static void applyTo(Image image, Op op) {
        if (op instanceof AppendOp a) {
            image.entries.addAll(a.entries());
        } else if (op instanceof InstallOp i) {
            image.install(i.snapshot(), i.membership());
        } else if (op instanceof MarkOp m) {
            image.commitMark = m.commit();
        }
    }

    /**
     * Process crash: the volatile image is lost except, when {@code random} is given, a prefix of the unsynced writes
     * that reached the disk anyway (possibly ending inside an append: a torn tail, dropped at recovery). Returns
     * whether anything unsynced survived or was torn.
     */
    boolean crash(SplittableRandom random) {
        boolean torn = false;
        if (random != null && !pending.isEmpty() && random.nextInt(3) == 0) {
            int keep = random.nextInt(pending.size() + 1);
            for (int i = 0; i < keep; i++) {
                applyTo(durable, pending.get(i).op());
            }
            if (keep < pending.size() && pending.get(keep).op() instanceof AppendOp a && a.entries().size() > 1) {
                durable.entries.addAll(a.entries().subList(0, random.nextInt(a.entries().size())));
            }
            torn = true;
        }
        pending.clear();
        volatileImage = durable.copy();
        table = null;
        lastMembershipKnown = false;
        return torn;
    }

    /** Crash with every unsynced write on disk except the second half of the last append (a torn record). */
    boolean crashTearingLastAppend() {
        int last = -1;
        for (int i = 0; i < pending.size(); i++) {
            if (pending.get(i).op() instanceof AppendOp) {
                last = i;
            }
        }
        if (last < 0) {
            return crash(null);
        }
        for (int i = 0; i < last; i++) {
            applyTo(durable, pending.get(i).op());
        }
        List<Entry> entries = ((AppendOp) pending.get(last).op()).entries();
        durable.entries.addAll(entries.subList(0, entries.size() / 2));
        pending.clear();
        volatileImage = durable.copy();
        table = null;
        lastMembershipKnown = false;
        return true;
    }

    /** Takes a snapshot at {@code zxid} (a committed, applied point) and purges every record up to it. */
    void snapshotAndPurge(long zxid) {
        if (!pending.isEmpty() && pending.stream().anyMatch(p -> p.op() instanceof InstallOp)) {
            return;
        }
        for (Image i : new Image[] {durable, volatileImage}) {
            if (zxid > i.snapshot && zxid <= i.last()) {
                i.snapshotMembership = i.membershipAt(zxid);
                i.snapshot = zxid;
                i.base = zxid;
                i.entries.subList(0, i.indexAfter(zxid)).clear();
            }
        }
        table = null;
        lastMembershipKnown = false;
    }

    Image durableImage() {
        return durable;
    }

    Image volatileImage() {
        return volatileImage;
    }

    /** The last durable zxid of the log as the process sees it (valid when no install is pending). */
    long durableLast() {
        return durable.last();
    }

    private void checkShape(Image image) {
        long prev = image.base;
        boolean atBase = true;
        for (Entry e : image.entries) {
            checkFollows(prev, e.zxid(), atBase);
            prev = e.zxid();
            atBase = false;
        }
    }

    /** zxids strictly increase and an epoch has no gap: same epoch = counter + 1, new epoch = its EPOCH record. */
    private void checkFollows(long prev, long next, boolean prevIsBase) {
        boolean ok = Zxid.epoch(next) == Zxid.epoch(prev) ? next == prev + 1
                : Zxid.epoch(next) > Zxid.epoch(prev) && Zxid.counter(next) == 0;
        if (!ok && !(prevIsBase && prev == 0 && Zxid.counter(next) == 0)) {
            throw new SimFailure(name + ": log shape broken: " + Zxid.str(next) + " after " + Zxid.str(prev));
        }
    }
}
