package dev.zkr.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The append-only transaction log: segment files {@code log.<hex>} in one directory, each record carrying its
 * length, a CRC32C and its zxid (layout in {@code LogFormat}).
 *
 * <p>Appends are group-committed by one writer thread: every record queued while the previous fsync ran goes out
 * with one write and one {@code force}. A future returned by {@link #appendAsync} completes only after its record
 * is durable; futures complete in zxid order, on the log's acknowledgement thread (so callbacks must not block;
 * hand heavy work to another executor).
 *
 * <p>{@link #open} recovers: the last segment is scanned; a torn or corrupt tail (short record, bad checksum,
 * garbage, zero-filled preallocated space) is truncated with one warning naming file, offset and bytes dropped.
 * Damage that cannot be a torn tail (valid batches after it, a bad older segment, a gap between segments) throws
 * {@link CorruptLogException}, at open or when {@link #read} reaches it.
 *
 * <p>For a replica: each batch carries the commit mark set with {@link #recordCommitMark} (no extra fsync), open
 * reports the durable one ({@link #commitMarkAtOpen}), and {@link #truncateAfter} durably cuts the log back (never
 * below the commit mark). Readers for a consensus layer: {@link #read} (records after a zxid),
 * {@link #startsAfterZxid} (first retained position), {@link #lastZxid}.
 *
 * <p>Thread-safe. Zxids must be strictly increasing across all appends, except that appends after a
 * {@link #truncateAfter} continue after its zxid (callers assign them under one lock or from one thread). The log keeps a reference to each payload until it is written: do not modify it after appending.
 * A failed write or fsync fails the pending futures and every later call with {@link StorageException}.
 */
public final class TxnLog implements LogStore, SnapshotReceiver.Log, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TxnLog.class);

    private final Path dir;
    private final LogConfig config;
    /** Segments, oldest first; the last one is the active segment. Guarded by {@code this}. */
    private final List<Segment> segments;
    /** End of the durable data of the active segment. Guarded by {@code this} for rollover, volatile for reads. */
    private volatile long activeEnd;
    private final GroupCommitter writer;
    private final long commitMarkAtOpen;
    /** Record counts of sealed segments, for the retention window. */
    private final java.util.Map<Path, Long> recordCounts = new java.util.concurrent.ConcurrentHashMap<>();
    private boolean closed;
    /** Told each step of a truncation or reset (a no-op but in the crash tests). */
    private final Consumer<String> steps;

    private TxnLog(Path dir, LogConfig config, List<Segment> segments, FileChannel active, RecoveredTail tail,
                   Consumer<String> steps) throws IOException {
        this.dir = dir;
        this.steps = steps;
        this.config = config;
        this.segments = segments;
        this.activeEnd = tail.end();
        this.commitMarkAtOpen = tail.commitMark();
        this.writer = new GroupCommitter(this, config, active, tail.end(), active.size(), tail.lastZxid(),
                tail.commitMark());
    }

    /** Opens (creating if needed) the log in {@code dir} with default settings and recovers its tail. */
    public static TxnLog open(Path dir) {
        return open(dir, LogConfig.defaults());
    }

    /**
     * Opens (creating if needed) the log in {@code dir} and recovers its tail.
     *
     * @throws CorruptLogException when the log is damaged beyond a torn tail
     * @throws StorageException    on I/O errors
     */
    public static TxnLog open(Path dir, LogConfig config) {
        return open(dir, config, step -> { });
    }

    /**
     * {@link #open(Path, LogConfig)} with a seam told the name of each step of a truncation or reset as it is reached
     * (the crash tests kill the process there).
     */
    static TxnLog open(Path dir, LogConfig config, Consumer<String> steps) {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(config, "config");
        try {
            StorageFiles.createDirectories(dir);
            List<Segment> segments = listSegments(dir);
            long truncatedTo = LogTruncation.redo(dir, segments, steps);
            long resetTo = LogReset.redo(dir, segments, steps);
            FileChannel active;
            RecoveredTail tail;
            if (segments.isEmpty()) {
                long prev = Math.max(0, Math.max(truncatedTo, resetTo));
                Segment first = new Segment(dir.resolve(Segment.fileName(prev)), prev);
                active = createSegmentFile(dir, first, prev);
                segments.add(first);
                tail = new RecoveredTail(LogFormat.headerBytes(), prev, prev, LogFormat.VERSION);
            } else {
                Segment last = segments.get(segments.size() - 1);
                active = FileChannel.open(last.path(), StandardOpenOption.READ, StandardOpenOption.WRITE);
                try {
                    tail = TailRecovery.recover(last, active);
                    if (tail.version() < LogFormat.VERSION) {
                        // an older segment stays as it is; new records go to a segment of the current version
                        active.close();
                        Segment next = new Segment(dir.resolve(Segment.fileName(tail.lastZxid())), tail.lastZxid());
                        active = createSegmentFile(dir, next, tail.commitMark());
                        if (next.prevZxid() == last.prevZxid()) {
                            segments.set(segments.size() - 1, next); // an empty old segment was replaced
                        } else {
                            segments.add(next);
                        }
                        tail = new RecoveredTail(LogFormat.headerBytes(), tail.lastZxid(), tail.commitMark(),
                                LogFormat.VERSION);
                    }
                } catch (RuntimeException | IOException e) {
                    active.close();
                    throw e;
                }
            }
            if (truncatedTo >= 0) {
                LogTruncation.clearIntents(dir);
                LOG.warn("Completed an interrupted truncation of log {} after zxid 0x{}", dir,
                        Long.toHexString(truncatedTo));
            }
            if (resetTo >= 0) {
                LogReset.clearIntents(dir);
                LOG.warn("Completed an interrupted restart of log {} after snapshot zxid 0x{}", dir,
                        Long.toHexString(resetTo));
            }
            return new TxnLog(dir, config, segments, active, tail, steps);
        } catch (IOException e) {
            throw new StorageException("cannot open transaction log in " + dir + ": " + e, e);
        }
    }

    /**
     * What open found at the end of the log: the end offset of the active segment, the last zxid, the durable
     * commit mark and the active segment's format version.
     */
    record RecoveredTail(long end, long lastZxid, long commitMark, int version) {
    }

    private static List<Segment> listSegments(Path dir) throws IOException {
        List<Segment> segments = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, LogFormat.SEGMENT_PREFIX + "*")) {
            for (Path p : files) {
                String name = p.getFileName().toString();
                if (name.endsWith(".tmp")) {
                    Files.deleteIfExists(p); // a segment whose creation never completed
                    continue;
                }
                long first = StorageFiles.parseHexSuffix(name, LogFormat.SEGMENT_PREFIX);
                if (first < 0) {
                    continue;
                }
                LogFormat.Header header = readHeader(p);
                if (header == null || header.prevZxid() != first - 1) {
                    throw new CorruptLogException("log segment " + p + " has a damaged header (prevZxid "
                            + (header == null ? "unreadable" : "0x" + Long.toHexString(header.prevZxid())) + ")");
                }
                segments.add(new Segment(p, header.prevZxid()));
            }
        }
        segments.sort(Comparator.comparingLong(Segment::prevZxid));
        return segments;
    }

    static LogFormat.Header readHeader(Path p) throws IOException {
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
            return readHeader(ch);
        }
    }

    /** The segment header at the start of {@code ch}, or null when it is damaged or of an unknown version. */
    static LogFormat.Header readHeader(FileChannel ch) throws IOException {
        ByteBuffer header = ByteBuffer.allocate(LogFormat.MAX_HEADER_BYTES);
        while (header.hasRemaining() && ch.read(header, header.position()) > 0) {
            // keep reading
        }
        header.flip();
        return LogFormat.readSegmentHeader(header);
    }

    /** Writes a new segment with its header through a temp file and a rename; returns it open for writing. */
    private static FileChannel createSegmentFile(Path dir, Segment segment, long commitMark) throws IOException {
        Path tmp = dir.resolve(segment.name() + ".tmp");
        try (FileChannel ch = StorageFiles.create(tmp, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
            ByteBuffer header = ByteBuffer.allocate(LogFormat.headerBytes());
            LogFormat.putSegmentHeader(header, segment.prevZxid(), commitMark);
            header.flip();
            while (header.hasRemaining()) {
                ch.write(header, header.position());
            }
            ch.force(true);
        }
        Files.move(tmp, segment.path(), StandardCopyOption.ATOMIC_MOVE);
        StorageFiles.fsyncDirectory(dir);
        return FileChannel.open(segment.path(), StandardOpenOption.READ, StandardOpenOption.WRITE);
    }

    /** Called by the writer thread at rollover: creates the next segment and makes it the active one. */
    FileChannel startSegment(long prevZxid, long commitMark) throws IOException {
        Segment next = new Segment(dir.resolve(Segment.fileName(prevZxid)), prevZxid);
        FileChannel ch = createSegmentFile(dir, next, commitMark);
        synchronized (this) {
            segments.add(next);
            activeEnd = LogFormat.headerBytes();
        }
        return ch;
    }

    /**
     * Called by the writer thread (its channel closed): durably removes every record after {@code zxid} and
     * returns a new active segment continuing after it (see {@link LogTruncation}).
     */
    synchronized FileChannel truncateFiles(long zxid, long commitMark) throws IOException {
        recordCounts.clear();
        LogTruncation.begin(dir, zxid, steps);
        LogTruncation.apply(dir, segments, zxid, steps);
        FileChannel ch = startSegment(zxid, commitMark);
        LogTruncation.finish(dir, zxid, steps);
        return ch;
    }

    /**
     * Called by the writer thread (its channel closed): durably replaces the whole log by a new active segment
     * continuing after {@code zxid} (see {@link LogReset}).
     */
    synchronized FileChannel resetFiles(long zxid) throws IOException {
        recordCounts.clear();
        LogReset.begin(dir, zxid, steps);
        FileChannel ch = startSegment(zxid, zxid);
        LogReset.apply(dir, segments, zxid, steps);
        LogReset.finish(dir, zxid, steps);
        return ch;
    }

    /** Called by the writer thread after each fsync. */
    void published(long end, long zxid) {
        activeEnd = end;
    }

    /**
     * Queues a record and returns a future that completes once the record is on disk (fsynced), or fails with a
     * {@link StorageException} if the write or fsync failed.
     *
     * @throws IllegalArgumentException if {@code zxid} is not above the last appended zxid or the payload is too big
     * @throws StorageException         if the log is closed or failed earlier
     */
    public CompletableFuture<Void> appendAsync(long zxid, byte[] payload) {
        checkPayload(payload);
        CompletableFuture<Void> f = new CompletableFuture<>();
        writer.enqueue(zxid, payload, f);
        return f;
    }

    /**
     * Queues a record without a future of its own; use {@link #sync()} to learn when it is durable.
     *
     * @throws IllegalArgumentException if {@code zxid} is not above the last appended zxid or the payload is too big
     * @throws StorageException         if the log is closed or failed earlier
     */
    public void append(long zxid, byte[] payload) {
        checkPayload(payload);
        writer.enqueue(zxid, payload, null);
    }

    private static void checkPayload(byte[] payload) {
        Objects.requireNonNull(payload, "payload");
        if (payload.length > LogFormat.MAX_PAYLOAD) {
            throw new IllegalArgumentException("log record payload of " + payload.length + " bytes exceeds "
                    + LogFormat.MAX_PAYLOAD);
        }
    }

    /**
     * Queues records in order (zxids strictly increasing) with one hand-off to the writer; use a
     * {@link DurabilityListener} or {@link #sync()} to learn when they are durable.
     *
     * @throws IllegalArgumentException if a zxid is not above the one before it, or a payload is too big; then
     *                                  none of the records is queued
     * @throws StorageException         if the log is closed or failed earlier
     */
    @Override
    public void appendAll(List<LogRecord> records) {
        for (LogRecord r : records) {
            checkPayload(r.payload());
        }
        writer.enqueueAll(records);
    }

    /**
     * Told, on the log's writer thread, about every fsync of records: cheaper than a future per record or per
     * sync when the caller only needs "durable up to zxid". Methods must be quick and must not block (queue the
     * news to your own thread); they are called in zxid order.
     */
    public interface DurabilityListener {
        /** Every record up to and including {@code zxid} is durable. */
        void durable(long zxid);

        /** The log failed; nothing appended after the last {@link #durable} call will become durable. */
        void failed(StorageException e);
    }

    /**
     * Told, on the log's writer thread, how long each fsync of a batch of records took and how many records the batch
     * held (metrics). Must be quick and must not block.
     */
    public interface FsyncObserver {
        void fsynced(long nanos, int records);
    }

    /** Sets the fsync observer (metrics); null for none (the default). */
    public void observeFsyncs(FsyncObserver observer) {
        writer.observe(observer);
    }

    /** True while records or sync requests wait for the writer (a hint: it may change at once). */
    @Override
    public boolean hasQueued() {
        return writer.hasQueued();
    }

    /** Sets the listener (at most one; set it before appending). */
    @Override
    public void listen(DurabilityListener listener) {
        writer.listen(Objects.requireNonNull(listener, "listener"));
    }

    /** A future that completes once every record appended before this call is durable. */
    public CompletableFuture<Void> sync() {
        CompletableFuture<Void> f = new CompletableFuture<>();
        writer.enqueue(-1, null, f);
        return f;
    }

    /**
     * Declares that history up to {@code zxid} is held elsewhere (a snapshot newer than this log's end, after
     * external damage to the log): starts a new segment continuing after {@code zxid} and waits until it is
     * durable. The missing range stays visible as a gap, so a later read across it fails instead of silently
     * skipping. Used by {@link Recovery}; call before appending.
     *
     * @throws IllegalArgumentException if {@code zxid} is not above {@link #lastZxid()}
     */
    public void continueAfter(long zxid) {
        try {
            writer.checkNotWriter("continueAfter");
            writer.continueAfter(zxid).join();
        } catch (java.util.concurrent.CompletionException e) {
            throw e.getCause() instanceof StorageException s ? s
                    : new StorageException("cannot continue log " + dir + " after 0x" + Long.toHexString(zxid), e);
        }
    }

    /**
     * Replaces the log's whole history by a snapshot at {@code zxid}, which the caller has made durable first (a
     * follower's SNAP install, docs/replication.md, Persistence rules, P3 c; recovery from a snapshot newer than the
     * log's end): the log continues after {@code zxid} in a new segment whose header carries {@code zxid} as the commit
     * mark, and every older segment is deleted, so afterwards {@link #startsAfterZxid()} and {@link #lastZxid()} are
     * {@code zxid} and a read from the start meets no gap. Returns once that is durable; records appended after this
     * call continue after {@code zxid}. Crash-safe: a crash at any point reopens as the old log or the restarted one
     * ({@link LogReset}). Readers opened before may fail.
     *
     * @throws IllegalArgumentException if {@code zxid} is not above {@link #lastZxid()} (truncate first: records
     *                                  after the snapshot's zxid would be lost)
     * @throws StorageException         on I/O errors (the log is then failed)
     */
    public void restartAfter(long zxid) {
        try {
            writer.checkNotWriter("restartAfter");
            writer.restartAfter(zxid).join();
        } catch (java.util.concurrent.CompletionException e) {
            throw e.getCause() instanceof StorageException s ? s
                    : new StorageException("cannot restart log " + dir + " after 0x" + Long.toHexString(zxid), e);
        }
    }

    /**
     * Durably removes every record with a zxid above {@code zxid} (ZooKeeper's follower TRUNC) and returns once
     * that is on disk; records queued before this call are written first (and so removed if above zxid), records
     * appended after it continue after {@code zxid} (their zxids may be ones used before, with new content).
     * Crash-safe: a crash at any point reopens as the old or the truncated log. Readers opened before may fail.
     * The durability listener is not told (its next report may be below an earlier one).
     *
     * @throws TruncateBelowCommitException if {@code zxid} is below the commit mark: committed records never go
     * @throws IllegalArgumentException     if {@code zxid} is below the log's start ({@link #startsAfterZxid()})
     * @throws StorageException             on I/O errors (the log is then failed)
     */
    @Override
    public void truncateAfter(long zxid) {
        synchronized (this) {
            if (zxid < segments.get(0).prevZxid()) {
                throw new IllegalArgumentException("cannot truncate log " + dir + " after 0x" + Long.toHexString(zxid)
                        + ": its history starts after 0x" + Long.toHexString(segments.get(0).prevZxid()));
            }
        }
        try {
            writer.checkNotWriter("truncateAfter");
            writer.truncateAfter(zxid).join();
        } catch (java.util.concurrent.CompletionException e) {
            throw e.getCause() instanceof StorageException s ? s
                    : new StorageException("cannot truncate log " + dir + " after 0x" + Long.toHexString(zxid), e);
        }
    }

    /**
     * Sets the commit mark (highest zxid known committed) that the next batch written carries in its trailer: it
     * rides on that batch's fsync and never causes one. Marks only grow; a batch records at most its own last
     * zxid. Declare only zxids whose records in this log are known committed. A log whose owner never declares
     * a mark keeps the mark found at open (standalone recovery ignores it and replays every durable record).
     */
    @Override
    public void recordCommitMark(long zxid) {
        writer.recordCommitMark(zxid);
    }

    /** The commit mark on disk: the one found at open, or the last one a written batch carried. */
    public long durableCommitMark() {
        return writer.durableCommitMark();
    }

    /**
     * The commit mark found at open: the highest mark carried by a v2 segment header or batch trailer, or the last
     * zxid of the log when its newest records are in a v1 segment (v1 counted every record as committed).
     */
    public long commitMarkAtOpen() {
        return commitMarkAtOpen;
    }

    /** The zxid of the last record appended (queued), or recovered at open; 0 for an empty log. */
    public long lastZxid() {
        return writer.lastAcceptedZxid();
    }

    /** The zxid of the last record known to be durable. */
    @Override
    public long durableZxid() {
        return writer.durableZxid();
    }

    /**
     * The zxid after which this log's history starts: records with larger zxids are all here (until
     * {@link #lastZxid()}), earlier ones were purged. 0 when nothing was ever purged.
     */
    public synchronized long startsAfterZxid() {
        return segments.get(0).prevZxid();
    }

    /** How many fsyncs of record batches the writer did since open (for tests and benchmarks). */
    public long fsyncCount() {
        return writer.fsyncs();
    }

    /** How many records were written since open. */
    public long recordsWritten() {
        return writer.records();
    }

    /** The log directory. */
    public Path directory() {
        return dir;
    }

    /** The segment files, oldest first (a copy). */
    public synchronized List<Path> segmentFiles() {
        return segments.stream().map(Segment::path).toList();
    }

    /**
     * Reads the durable records with zxid above {@code fromZxid}, oldest first, across segments; records appended
     * after this call may or may not be seen. Close the reader when done.
     *
     * @throws StorageException if {@code fromZxid} is older than the purged history ({@link #startsAfterZxid()})
     */
    public LogReader read(long fromZxid) {
        List<Segment> view;
        long end;
        synchronized (this) {
            if (fromZxid < segments.get(0).prevZxid()) {
                throw new StorageException("log " + dir + " was purged up to zxid 0x"
                        + Long.toHexString(segments.get(0).prevZxid()) + "; cannot read from 0x"
                        + Long.toHexString(fromZxid));
            }
            int first = 0;
            for (int i = segments.size() - 1; i >= 0; i--) {
                if (segments.get(i).prevZxid() <= fromZxid) {
                    first = i;
                    break;
                }
            }
            view = List.copyOf(segments.subList(first, segments.size()));
            end = activeEnd;
        }
        return new LogReader(view, end, fromZxid);
    }

    /**
     * Deletes segments that hold only records with zxid {@code <= zxid} (typically: the zxid of the oldest
     * snapshot kept), keeping the retention window ({@link LogConfig#retainTxns()}) counted back from
     * {@code zxid}. The active segment is never deleted. Returns the number of segments deleted.
     */
    public int purgeUpTo(long zxid) {
        return purgeUpTo(zxid, zxid);
    }

    /**
     * Deletes segments that hold only records with zxid {@code <= zxid}, except that at least
     * {@link LogConfig#retainTxns()} records with zxid {@code <= newestSnapshotZxid} stay (whole segments:
     * a follower that far behind the newest snapshot can still catch up from the log). The active segment is
     * never deleted. Returns the number of segments deleted.
     */
    public int purgeUpTo(long zxid, long newestSnapshotZxid) {
        long bound = retentionBound(zxid, newestSnapshotZxid);
        List<Segment> doomed = new ArrayList<>();
        synchronized (this) {
            // segment i holds zxids in (prev_i, prev_{i+1}]
            while (segments.size() > 1 && segments.get(1).prevZxid() <= bound) {
                doomed.add(segments.remove(0));
            }
        }
        for (Segment s : doomed) {
            recordCounts.remove(s.path());
            try {
                Files.deleteIfExists(s.path());
            } catch (IOException e) {
                throw new StorageException("cannot delete log segment " + s.path() + ": " + e, e);
            }
        }
        if (!doomed.isEmpty()) {
            StorageFiles.fsyncDirectory(dir);
            LOG.info("Purged {} log segment(s) up to zxid 0x{} in {}", doomed.size(), Long.toHexString(bound), dir);
        }
        return doomed.size();
    }

    /**
     * Lowers the purge bound {@code zxid} so that the sealed segments after it hold at least
     * {@link LogConfig#retainTxns()} records at or before {@code newest} (a segment that also holds later records
     * does not count, so the window errs on the side of keeping more).
     */
    private long retentionBound(long zxid, long newest) {
        long want = config.retainTxns();
        if (want == 0) {
            return zxid;
        }
        List<Segment> view;
        synchronized (this) {
            view = List.copyOf(segments);
        }
        long counted = 0;
        for (int i = view.size() - 2; i >= 0; i--) { // sealed segments, newest first
            long last = view.get(i + 1).prevZxid();
            if (last <= newest) {
                counted += recordCount(view.get(i));
            }
            if (counted >= want) {
                return Math.min(zxid, view.get(i).prevZxid()); // keep segment i and everything after it
            }
        }
        return Math.min(zxid, view.get(0).prevZxid()); // too few records yet: keep them all
    }

    /** The number of records in a sealed segment (scanned once, then remembered). */
    private long recordCount(Segment segment) {
        return recordCounts.computeIfAbsent(segment.path(), p -> {
            try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
                LogFormat.Header header = readHeader(ch);
                if (header == null) {
                    throw new CorruptLogException("log segment " + p + " has a damaged header");
                }
                RecordScanner scanner = new RecordScanner(ch, header, header.bytes(), ch.size(), header.prevZxid());
                long n = 0;
                while (scanner.next() == RecordScanner.Status.RECORD) {
                    n++;
                }
                return n;
            } catch (IOException e) {
                throw new StorageException("cannot read log segment " + p + ": " + e, e);
            }
        });
    }

    /** Writes and fsyncs everything queued, completes its futures and closes the files. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        writer.close();
    }

    @Override
    public String toString() {
        return "TxnLog[" + dir + "]";
    }
}
