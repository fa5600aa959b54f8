package dev.zkr.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The follower's side of a SNAP transfer: takes the chunks of snapshot {@code zxid} in order, writes them to
 * {@link SnapshotStore#partFile} and, with the last one, installs the snapshot crash-safely (docs/replication.md,
 * Persistence rules, P3) and returns the state loaded from it:
 * <ol>
 * <li>(a) the log was already cut after min(durable, zxid - 1): the {@code Ready} that asks for the install carries
 * that truncation, which the driver executes first; this class refuses to go on if the log still reaches the
 * snapshot;</li>
 * <li>the received file is fsynced, checked whole (header, length, CRC) and loaded with the reader — a snapshot
 * that cannot be read replaces nothing;</li>
 * <li>(b) it is renamed into the snapshot directory and the directory fsynced;</li>
 * <li>(c) the log restarts after the snapshot's zxid ({@link TxnLog#restartAfter}): its older records are all in
 * the snapshot;</li>
 * <li>(d) the loaded state is returned; only now may the driver report the snapshot installed.</li>
 * </ol>
 * A crash before (b) recovers the old state (the part file is deleted at open); after (b) the snapshot (recovery
 * restarts the log after it if (c) did not finish). A chunk of another snapshot or at the wrong offset is refused
 * with a {@link SnapshotTransferException} and the transfer starts over ({@link #offset()} is 0 again).
 * One thread at a time.
 *
 * @param <T> the state a snapshot holds (the data tree)
 */
public final class SnapshotReceiver<T> implements AutoCloseable {

    /**
     * What an install needs of the log: where it ends, and a durable restart after the snapshot (P3 c). {@link TxnLog}
     * on disk; the whole-server simulator's in-memory log in tests.
     */
    public interface Log {
        /** The last record's zxid (the log's start when it holds none). */
        long lastZxid();

        /** Durably drops every record and restarts the log after {@code zxid}. */
        void restartAfter(long zxid);
    }

    private final SnapshotStore store;
    private final Log log;
    private final long zxid;
    private final SnapshotReader<T> reader;
    private final Path part;
    private FileChannel file;
    private long offset;
    private boolean done;

    /**
     * A receiver for snapshot {@code zxid} into {@code store}, restarting {@code log} after it once installed.
     *
     * @param reader reads the snapshot body into a fresh state (as for {@link Recovery})
     */
    public SnapshotReceiver(SnapshotStore store, Log log, long zxid, SnapshotReader<T> reader) {
        if (zxid <= 0) {
            throw new IllegalArgumentException("bad snapshot zxid " + zxid);
        }
        this.store = Objects.requireNonNull(store, "store");
        this.log = Objects.requireNonNull(log, "log");
        this.reader = Objects.requireNonNull(reader, "reader");
        this.zxid = zxid;
        this.part = store.partFile(zxid);
    }

    /** The snapshot being received. */
    public long zxid() {
        return zxid;
    }

    /** Bytes received so far: the offset of the next chunk to ask for. */
    public long offset() {
        return offset;
    }

    /**
     * Takes the next chunk. Returns the loaded state once the last chunk has been taken and the snapshot installed
     * (P3 a–d); empty while more chunks are due.
     *
     * @throws SnapshotTransferException if the chunk is not of this snapshot or not at {@link #offset()}; the
     *                                   transfer restarts from offset 0
     * @throws CorruptSnapshotException  if the whole file fails its checks or cannot be read; the transfer restarts
     * @throws IllegalStateException     if the log still holds records at or after the snapshot's zxid (P3 a not
     *                                   done), or the install already finished
     * @throws StorageException          on I/O errors
     */
    public Optional<T> accept(long chunkZxid, long chunkOffset, byte[] data, boolean last) {
        Objects.requireNonNull(data, "data");
        if (done) {
            throw new IllegalStateException("snapshot 0x" + Long.toHexString(zxid) + " is already installed");
        }
        if (chunkZxid != zxid || chunkOffset != offset) {
            long expected = offset;
            reset();
            throw new SnapshotTransferException("refused a chunk of snapshot 0x" + Long.toHexString(chunkZxid)
                    + " at offset " + chunkOffset + ": expected snapshot 0x" + Long.toHexString(zxid) + " at offset "
                    + expected + "; starting over");
        }
        if (offset == 0) {
            checkLogBeforeSnapshot();
        }
        try {
            if (file == null) {
                file = StorageFiles.create(part, StandardOpenOption.TRUNCATE_EXISTING,
                        StandardOpenOption.WRITE);
            }
            ByteBuffer buf = ByteBuffer.wrap(data);
            while (buf.hasRemaining()) {
                file.write(buf, offset + buf.position());
            }
            offset += data.length;
            if (!last) {
                return Optional.empty();
            }
            file.close(); // installReceived fsyncs it
            file = null;
        } catch (IOException e) {
            reset();
            throw new StorageException("cannot write received snapshot " + part + ": " + e, e);
        }
        return Optional.of(install());
    }

    /** P3 a: the log must end before the snapshot, or restarting it after the snapshot would drop records. */
    private void checkLogBeforeSnapshot() {
        if (log.lastZxid() >= zxid) {
            reset();
            throw new IllegalStateException("log " + log + " holds records up to 0x"
                    + Long.toHexString(log.lastZxid()) + ": cut it before the snapshot's zxid before installing "
                    + "snapshot 0x" + Long.toHexString(zxid) + " (P3 a)");
        }
    }

    private T install() {
        checkLogBeforeSnapshot();
        store.steps().accept("received");
        Snapshot<T> loaded;
        try {
            loaded = store.installReceived(zxid, reader);
        } finally {
            offset = 0; // the part file is gone either way
        }
        store.steps().accept("installed");
        log.restartAfter(zxid);
        store.steps().accept("log restarted");
        done = true;
        return loaded.state();
    }

    /** Drops what was received; the next chunk expected is at offset 0. */
    public void reset() {
        offset = 0;
        closeFile();
        try {
            Files.deleteIfExists(part);
        } catch (IOException e) {
            throw new StorageException("cannot delete " + part + ": " + e, e);
        }
    }

    private void closeFile() {
        if (file != null) {
            try {
                file.close();
            } catch (IOException ignored) {
                // the file is being discarded
            }
            file = null;
        }
    }

    /** Abandons an unfinished transfer (its part file is deleted); nothing after an install. */
    @Override
    public void close() {
        if (!done) {
            reset();
        }
    }
}
