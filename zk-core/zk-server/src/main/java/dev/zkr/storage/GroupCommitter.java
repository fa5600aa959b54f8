package dev.zkr.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single writer of the active segment. Appends are queued; the writer thread takes everything queued while
 * its previous fsync ran, encodes it into one buffer, writes it with one positional write, forces it with one
 * {@code force(false)} and only then hands the batch to an acknowledgement thread, which completes the futures in
 * zxid order. A failed write or fsync poisons the log: the batch and everything after it fail.
 */
final class GroupCommitter {

    private static final Logger LOG = LoggerFactory.getLogger(GroupCommitter.class);
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(1 << 20).asReadOnlyBuffer();

    /**
     * A queued record; zxid -1 is a marker without a record: a sync, or with {@code truncateAfter >= 0} a
     * truncation of the log after that zxid, or with {@code restartAfter >= 0} a restart of the log after it.
     */
    private record QueuedAppend(long zxid, byte[] payload, CompletableFuture<Void> future, long truncateAfter,
                                long restartAfter) {
        QueuedAppend(long zxid, byte[] payload, CompletableFuture<Void> future) {
            this(zxid, payload, future, -1, -1);
        }

        QueuedAppend(long zxid, byte[] payload, CompletableFuture<Void> future, long truncateAfter) {
            this(zxid, payload, future, truncateAfter, -1);
        }
    }

    private final TxnLog log;
    private final LogConfig config;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wake = lock.newCondition();
    private List<QueuedAppend> queue = new ArrayList<>();
    private long lastAcceptedZxid;
    /** The commit mark the next batch carries (capped at its last zxid). Guarded by lock. */
    private long requestedMark;
    /** If >= 0: before the next batch, start a new segment continuing after this zxid. Guarded by lock. */
    private long rollTo = -1;
    private boolean closing;
    private volatile StorageException failure;

    private final Thread thread;
    private final ExecutorService acks;
    private volatile Thread ackThread;
    private final CRC32C crc = new CRC32C();
    /** Encoding buffer; a big batch is written in several writes of this size, then forced once. */
    private static final int MAX_BUFFER = 4 << 20;
    private ByteBuffer buf = ByteBuffer.allocateDirect(MAX_BUFFER);

    // writer-thread state
    private FileChannel channel;
    private long writePos;
    private long allocated;
    private long lastWrittenZxid;

    private volatile TxnLog.DurabilityListener listener;
    /** Told of each fsync's time and batch size (metrics), or null. */
    private volatile TxnLog.FsyncObserver fsyncObserver;
    /** queue.size(), readable without the lock. */
    private volatile int queued;
    private volatile long durableZxid;
    private volatile long durableCommitMark;
    private volatile long fsyncs;
    private volatile long records;

    GroupCommitter(TxnLog log, LogConfig config, FileChannel channel, long writePos, long fileSize, long lastZxid,
                   long commitMark) {
        this.requestedMark = commitMark;
        this.durableCommitMark = commitMark;
        this.log = log;
        this.config = config;
        this.channel = channel;
        this.writePos = writePos;
        this.allocated = fileSize;
        this.lastAcceptedZxid = lastZxid;
        this.lastWrittenZxid = lastZxid;
        this.durableZxid = lastZxid;
        String name = log.directory().getFileName() == null ? "log" : log.directory().getFileName().toString();
        this.acks = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "zkr-log-ack-" + name);
            t.setDaemon(true);
            ackThread = t;
            return t;
        });
        this.thread = new Thread(this::run, "zkr-log-writer-" + name);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    void observe(TxnLog.FsyncObserver observer) {
        this.fsyncObserver = observer;
    }

    /** Queues a record; {@code future} may be null. */
    void enqueue(long zxid, byte[] payload, CompletableFuture<Void> future) {
        lock.lock();
        try {
            checkUsable();
            if (zxid != -1) {
                if (zxid <= lastAcceptedZxid) {
                    throw new IllegalArgumentException("zxid 0x" + Long.toHexString(zxid)
                            + " is not above the last appended zxid 0x" + Long.toHexString(lastAcceptedZxid));
                }
                lastAcceptedZxid = zxid;
            }
            queue.add(new QueuedAppend(zxid, payload, future));
            queued = queue.size();
            if (queue.size() == 1) {
                wake.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    private void checkUsable() {
        if (failure != null) {
            throw new StorageException("transaction log " + log.directory() + " failed earlier: "
                    + failure.getMessage(), failure);
        }
        if (closing) {
            throw new StorageException("transaction log " + log.directory() + " is closed");
        }
    }

    /** Queues records in order under one lock, waking the writer at most once. */
    void enqueueAll(List<LogRecord> records) {
        if (records.isEmpty()) {
            return;
        }
        lock.lock();
        try {
            checkUsable();
            long last = lastAcceptedZxid;
            for (LogRecord r : records) {
                if (r.zxid() <= last) {
                    throw new IllegalArgumentException("zxid 0x" + Long.toHexString(r.zxid())
                            + " is not above the last appended zxid 0x" + Long.toHexString(last));
                }
                last = r.zxid();
            }
            lastAcceptedZxid = last;
            boolean wasEmpty = queue.isEmpty();
            for (LogRecord r : records) {
                queue.add(new QueuedAppend(r.zxid(), r.payload(), null));
            }
            queued = queue.size();
            if (wasEmpty) {
                wake.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    boolean hasQueued() {
        return queued > 0;
    }

    void listen(TxnLog.DurabilityListener l) {
        listener = l;
    }

    /** Makes the log continue after {@code zxid} in a new segment (see {@link TxnLog#continueAfter}). */
    /**
     * Throws if the caller is the writer thread: an operation that waits for the writer (truncation, restart,
     * continuation) would wait for itself forever. The writer thread runs the durability listener, which may run
     * a server round; such a round must not reach these operations.
     */
    void checkNotWriter(String what) {
        if (Thread.currentThread() == thread) {
            throw new IllegalStateException(what + " called on the log's writer thread, which it would wait for");
        }
    }

    CompletableFuture<Void> continueAfter(long zxid) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        lock.lock();
        try {
            checkUsable();
            if (zxid <= lastAcceptedZxid) {
                throw new IllegalArgumentException("zxid 0x" + Long.toHexString(zxid)
                        + " is not above the last appended zxid 0x" + Long.toHexString(lastAcceptedZxid));
            }
            lastAcceptedZxid = zxid;
            rollTo = zxid;
            queue.add(new QueuedAppend(-1, null, f));
            queued = queue.size();
            wake.signal();
        } finally {
            lock.unlock();
        }
        return f;
    }

    /** Queues a restart of the log after {@code zxid} (see {@link TxnLog#restartAfter}). */
    CompletableFuture<Void> restartAfter(long zxid) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        lock.lock();
        try {
            checkUsable();
            if (zxid <= lastAcceptedZxid) {
                throw new IllegalArgumentException("cannot restart log " + log.directory() + " after 0x"
                        + Long.toHexString(zxid) + ": it holds records up to 0x" + Long.toHexString(lastAcceptedZxid));
            }
            lastAcceptedZxid = zxid;
            requestedMark = Math.max(requestedMark, zxid);
            queue.add(new QueuedAppend(-1, null, f, -1, zxid));
            queued = queue.size();
            wake.signal();
        } finally {
            lock.unlock();
        }
        return f;
    }

    /** Queues a truncation of the log after {@code zxid} (see {@link TxnLog#truncateAfter}). */
    CompletableFuture<Void> truncateAfter(long zxid) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        lock.lock();
        try {
            checkUsable();
            long floor = Math.max(durableCommitMark, Math.min(requestedMark, lastAcceptedZxid));
            if (zxid < floor) {
                throw new TruncateBelowCommitException("refusing to truncate log " + log.directory() + " after 0x"
                        + Long.toHexString(zxid) + ": records up to 0x" + Long.toHexString(floor)
                        + " are committed");
            }
            if (zxid >= lastAcceptedZxid) {
                queue.add(new QueuedAppend(-1, null, f)); // nothing to remove: wait for what is queued
            } else {
                lastAcceptedZxid = zxid;
                queue.add(new QueuedAppend(-1, null, f, zxid));
            }
            queued = queue.size();
            wake.signal();
        } finally {
            lock.unlock();
        }
        return f;
    }

    void recordCommitMark(long zxid) {
        lock.lock();
        try {
            requestedMark = Math.max(requestedMark, zxid);
        } finally {
            lock.unlock();
        }
    }

    long durableCommitMark() {
        return durableCommitMark;
    }

    long lastAcceptedZxid() {
        lock.lock();
        try {
            return lastAcceptedZxid;
        } finally {
            lock.unlock();
        }
    }

    long durableZxid() {
        return durableZxid;
    }

    long fsyncs() {
        return fsyncs;
    }

    long records() {
        return records;
    }

    StorageException failure() {
        return failure;
    }

    /** Writes out everything queued, stops the threads and trims the preallocated tail of the active segment. */
    void close() {
        lock.lock();
        try {
            closing = true;
            wake.signal();
        } finally {
            lock.unlock();
        }
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        acks.shutdown();
        if (Thread.currentThread() == ackThread) {
            return; // closed from a completion callback: the remaining completions run after it returns
        }
        try {
            if (!acks.awaitTermination(30, TimeUnit.SECONDS)) {
                LOG.warn("Log acknowledgement thread of {} did not finish within 30 s", log.directory());
            }
        } catch (InterruptedException e) {
            interrupted = true;
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        List<QueuedAppend> batch = null;
        long roll;
        long mark;
        try {
            while (true) {
                lock.lock();
                try {
                    while (queue.isEmpty() && !closing) {
                        wake.awaitUninterruptibly();
                    }
                    if (queue.isEmpty()) {
                        break;
                    }
                    batch = queue;
                    queue = new ArrayList<>(Math.max(16, batch.size()));
                    queued = 0;
                    roll = rollTo;
                    rollTo = -1;
                    mark = requestedMark;
                } finally {
                    lock.unlock();
                }
                if (roll >= 0) {
                    roll(roll);
                    lastWrittenZxid = roll;
                    durableZxid = roll;
                }
                boolean wrote = false;
                int from = 0;
                for (int i = 0, n = batch.size(); i < n; i++) {
                    long truncate = batch.get(i).truncateAfter;
                    long restart = batch.get(i).restartAfter;
                    if (truncate >= 0 || restart >= 0) { // rare: split the batch around it
                        wrote |= write(batch.subList(from, i), mark);
                        if (truncate >= 0) {
                            truncate(truncate);
                        } else {
                            restart(restart);
                        }
                        wrote = false;
                        from = i + 1;
                    }
                }
                wrote |= write(from == 0 ? batch : batch.subList(from, batch.size()), mark);
                List<QueuedAppend> done = batch;
                batch = null;
                TxnLog.DurabilityListener l = listener;
                if (wrote && l != null) {
                    l.durable(lastWrittenZxid); // straight from this thread: one call per fsync, no hand-off
                }
                if (hasFutures(done)) {
                    acks.execute(() -> complete(done, null));
                }
            }
            finish();
        } catch (Throwable t) {
            poison(t, batch);
        }
    }

    private static boolean hasFutures(List<QueuedAppend> batch) {
        for (int i = 0, n = batch.size(); i < n; i++) {
            if (batch.get(i).future != null) {
                return true;
            }
        }
        return false;
    }

    /**
     * Writes and forces the records of a batch, the last one carrying the commit mark (at most its own zxid);
     * false if it held only markers.
     */
    private boolean write(List<QueuedAppend> batch, long requested) throws IOException {
        long bytes = 0;
        int last = -1;
        int count = 0;
        for (int i = 0; i < batch.size(); i++) {
            QueuedAppend p = batch.get(i);
            if (p.zxid != -1) {
                bytes += LogFormat.recordBytes(p.payload.length, false);
                last = i;
                count++;
            }
        }
        if (last < 0) {
            return false; // only sync markers: everything before them is already durable
        }
        if (writePos > LogFormat.headerBytes() && writePos + bytes > config.segmentBytes()) {
            roll(lastWrittenZxid);
        }
        long lastZxid = batch.get(last).zxid;
        long mark = Math.max(durableCommitMark, Math.min(requested, lastZxid));
        bytes += LogFormat.MARK_BYTES;
        preallocate(writePos + bytes);
        long at = writePos;
        buf.clear();
        for (int i = 0; i <= last; i++) {
            QueuedAppend p = batch.get(i);
            if (p.zxid == -1) {
                continue;
            }
            int size = LogFormat.recordBytes(p.payload.length, i == last);
            if (buf.remaining() < size) {
                at = flushBuffer(at);
                if (buf.capacity() < size) {
                    buf = ByteBuffer.allocateDirect(size);
                }
            }
            LogFormat.putRecord(buf, crc, p.zxid, p.payload, i == last, mark);
        }
        at = flushBuffer(at);
        if (buf.capacity() > MAX_BUFFER) {
            buf = ByteBuffer.allocateDirect(MAX_BUFFER); // do not keep a huge record's buffer
        }
        TxnLog.FsyncObserver observer = fsyncObserver;
        long forceStart = observer == null ? 0 : System.nanoTime();
        channel.force(false);
        if (observer != null) {
            observer.fsynced(System.nanoTime() - forceStart, count);
        }
        writePos = at;
        lastWrittenZxid = batch.get(last).zxid;
        fsyncs++;
        records += count;
        durableZxid = lastWrittenZxid;
        durableCommitMark = mark;
        log.published(writePos, lastWrittenZxid);
        return true;
    }

    /** Writes the encoded records in {@code buf} at {@code at}; returns the offset after them. */
    private long flushBuffer(long at) throws IOException {
        buf.flip();
        while (buf.hasRemaining()) {
            at += channel.write(buf, at);
        }
        buf.clear();
        return at;
    }

    private void preallocate(long needed) throws IOException {
        if (needed <= allocated) {
            return;
        }
        long target = needed;
        if (config.preallocateBytes() > 0) {
            target = Math.max(needed, Math.min(allocated + config.preallocateBytes(), config.segmentBytes()));
        }
        long at = Math.max(allocated, writePos);
        while (at < target) {
            ByteBuffer z = ZEROS.duplicate();
            z.limit((int) Math.min(z.capacity(), target - at));
            at += channel.write(z, at);
        }
        allocated = target;
    }

    private void roll(long prevZxid) throws IOException {
        trim();
        channel.close();
        channel = log.startSegment(prevZxid, durableCommitMark);
        writePos = LogFormat.headerBytes();
        allocated = channel.size();
    }

    /** Removes every record after {@code zxid} from disk and continues in a new segment after it. */
    private void truncate(long zxid) throws IOException {
        if (zxid < durableCommitMark) { // a mark above it was declared after the truncation was queued
            throw new TruncateBelowCommitException("truncation of log " + log.directory() + " after 0x"
                    + Long.toHexString(zxid) + " is below the commit mark 0x" + Long.toHexString(durableCommitMark)
                    + " written meanwhile");
        }
        channel.close();
        channel = log.truncateFiles(zxid, durableCommitMark);
        writePos = LogFormat.headerBytes();
        allocated = channel.size();
        lastWrittenZxid = zxid;
        durableZxid = zxid;
        log.published(writePos, zxid);
    }

    /** Replaces every segment by a new one continuing after {@code zxid}, carrying it as the commit mark. */
    private void restart(long zxid) throws IOException {
        channel.close(); // no trim: the segment is deleted (a crash before that reopens it like any tail)
        channel = log.resetFiles(zxid);
        writePos = LogFormat.headerBytes();
        allocated = channel.size();
        lastWrittenZxid = zxid;
        durableZxid = zxid;
        durableCommitMark = Math.max(durableCommitMark, zxid);
        log.published(writePos, zxid);
    }

    /** Cuts the preallocated zeros after the last record and makes the size durable. */
    private void trim() throws IOException {
        if (allocated > writePos) {
            channel.truncate(writePos);
            allocated = writePos;
            channel.force(true);
        }
        // otherwise every record was already forced with its batch
    }

    private void finish() throws IOException {
        trim();
        channel.close();
    }

    private void poison(Throwable t, List<QueuedAppend> batch) {
        StorageException e = t instanceof StorageException s ? s
                : new StorageException("write to transaction log " + log.directory() + " failed: " + t, t);
        List<QueuedAppend> rest;
        lock.lock();
        try {
            failure = e;
            rest = queue;
            queue = new ArrayList<>();
            queued = 0;
        } finally {
            lock.unlock();
        }
        LOG.error("Transaction log {} failed; no further appends are accepted: {}", log.directory(), e.toString());
        try {
            channel.close();
        } catch (IOException ignored) {
            // the log is already failed; the close error adds nothing
        }
        List<QueuedAppend> failed = new ArrayList<>();
        if (batch != null) {
            failed.addAll(batch);
        }
        failed.addAll(rest);
        TxnLog.DurabilityListener l = listener;
        if (l != null) {
            try {
                l.failed(e);
            } catch (RuntimeException ex) {
                LOG.warn("durability listener of {} failed: {}", log.directory(), ex.toString());
            }
        }
        acks.execute(() -> complete(failed, e));
    }

    private static void complete(List<QueuedAppend> batch, StorageException error) {
        for (QueuedAppend p : batch) {
            if (p.future != null) {
                if (error == null) {
                    p.future.complete(null);
                } else {
                    p.future.completeExceptionally(error);
                }
            }
        }
    }
}
