package dev.zkr.storage;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardOpenOption;
import java.util.NoSuchElementException;
import java.util.Objects;

/**
 * The leader's side of a SNAP transfer (docs/replication.md, SNAP transfer: the newest snapshot file is streamed as it
 * is): one snapshot file of a {@link SnapshotStore}, checked whole when opened and then read one chunk at a time, in
 * order ({@link #hasNext}/{@link #next}) or at the offset a follower asks for ({@link #chunkAt}). Holds the file open,
 * so a snapshot deleted meanwhile by retention can still be sent to the end; memory is one chunk. Not thread-safe.
 */
public final class SnapshotSender implements AutoCloseable {

    /** Chunk size: well under the peer transport's frame limit. */
    public static final int CHUNK_BYTES = 512 * 1024;

    /**
     * One piece of the snapshot file.
     *
     * @param zxid   the snapshot's zxid
     * @param offset where {@code data} starts in the file
     * @param data   the bytes, at most {@link #CHUNK_BYTES}
     * @param last   true when {@code data} ends the file
     */
    public record Chunk(long zxid, long offset, byte[] data, boolean last) {
    }

    private final long zxid;
    private final FileChannel file;
    private final long size;
    private final int chunkBytes;
    private long position;

    private SnapshotSender(long zxid, FileChannel file, long size, int chunkBytes) {
        this.zxid = zxid;
        this.file = file;
        this.size = size;
        this.chunkBytes = chunkBytes;
    }

    /**
     * Opens snapshot {@code zxid} of {@code store} for sending, after checking it is intact.
     *
     * @throws NoSuchSnapshotException  if there is no such snapshot file
     * @throws CorruptSnapshotException if the file is damaged (sending it would only make the follower refuse it)
     * @throws StorageException         on I/O errors
     */
    public static SnapshotSender open(SnapshotStore store, long zxid) {
        return open(store, zxid, CHUNK_BYTES);
    }

    /** As {@link #open(SnapshotStore, long)} with another chunk size (tests). */
    static SnapshotSender open(SnapshotStore store, long zxid, int chunkBytes) {
        Objects.requireNonNull(store, "store");
        if (chunkBytes < 1 || chunkBytes > CHUNK_BYTES) {
            throw new IllegalArgumentException("chunk size " + chunkBytes);
        }
        java.nio.file.Path path = store.fileOf(zxid);
        FileChannel ch;
        try {
            ch = FileChannel.open(path, StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            throw new NoSuchSnapshotException("no snapshot 0x" + Long.toHexString(zxid) + " to send in "
                    + store.directory());
        } catch (IOException e) {
            throw new StorageException("cannot open snapshot " + path + ": " + e, e);
        }
        try {
            String problem = SnapshotStore.verify(path, zxid);
            if (problem != null) {
                throw new CorruptSnapshotException("snapshot " + path + " is damaged, not sending it: " + problem);
            }
            return new SnapshotSender(zxid, ch, ch.size(), chunkBytes);
        } catch (IOException | RuntimeException e) {
            try {
                ch.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            if (e instanceof StorageException s) {
                throw s;
            }
            throw new StorageException("cannot read snapshot " + path + ": " + e, e);
        }
    }

    /** The snapshot's zxid. */
    public long zxid() {
        return zxid;
    }

    /** The file's size in bytes. */
    public long size() {
        return size;
    }

    /** Whether {@link #next} has a chunk left. */
    public boolean hasNext() {
        return position < size;
    }

    /** The chunk after the previous one (the first: offset 0). */
    public Chunk next() {
        if (!hasNext()) {
            throw new NoSuchElementException("snapshot 0x" + Long.toHexString(zxid) + " sent to its end");
        }
        Chunk c = chunkAt(position);
        position += c.data().length;
        return c;
    }

    /**
     * The chunk starting at {@code offset} (what a follower's request names).
     *
     * @throws IllegalArgumentException if {@code offset} is not inside the file
     */
    public Chunk chunkAt(long offset) {
        if (offset < 0 || offset >= size) {
            throw new IllegalArgumentException("offset " + offset + " outside snapshot 0x" + Long.toHexString(zxid)
                    + " of " + size + " bytes");
        }
        ByteBuffer buf = ByteBuffer.allocate((int) Math.min(chunkBytes, size - offset));
        try {
            while (buf.hasRemaining()) {
                if (file.read(buf, offset + buf.position()) < 0) {
                    throw new EOFException("snapshot 0x" + Long.toHexString(zxid) + " shorter than " + size);
                }
            }
        } catch (IOException e) {
            throw new StorageException("cannot read snapshot 0x" + Long.toHexString(zxid) + ": " + e, e);
        }
        return new Chunk(zxid, offset, buf.array(), offset + buf.capacity() == size);
    }

    @Override
    public void close() {
        try {
            file.close();
        } catch (IOException e) {
            throw new StorageException("cannot close snapshot 0x" + Long.toHexString(zxid) + ": " + e, e);
        }
    }
}
