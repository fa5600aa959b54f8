package dev.zkr.storage;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The leader's snapshot transfers under way, one {@link SnapshotSender} per follower, so that each request of a
 * pulled transfer reads one chunk from an already checked, open file (opening checks the whole file: doing it per
 * request would read the snapshot once per chunk). A sender is opened on the first request of a transfer (or one for
 * another snapshot), closed after its last chunk is served and by {@link #drop} (the follower's link went down).
 * Not thread-safe: the server uses it inside its rounds only (docs/architecture.md, Threads).
 */
public final class SnapshotSenders implements AutoCloseable {

    private final SnapshotStore store;
    private final int chunkBytes;
    private final Map<Integer, SnapshotSender> open = new HashMap<>();

    public SnapshotSenders(SnapshotStore store) {
        this(store, SnapshotSender.CHUNK_BYTES);
    }

    SnapshotSenders(SnapshotStore store, int chunkBytes) {
        this.store = Objects.requireNonNull(store, "store");
        this.chunkBytes = chunkBytes;
    }

    /**
     * The chunk of snapshot {@code zxid} at {@code offset} for {@code follower}.
     *
     * @throws NoSuchSnapshotException  if the snapshot is not on disk
     * @throws CorruptSnapshotException if it is damaged
     * @throws IllegalArgumentException if {@code offset} is outside the file
     */
    public SnapshotSender.Chunk chunk(int follower, long zxid, long offset) {
        SnapshotSender sender = open.get(follower);
        if (sender != null && sender.zxid() != zxid) {
            drop(follower);
            sender = null;
        }
        if (sender == null) {
            sender = SnapshotSender.open(store, zxid, chunkBytes);
            open.put(follower, sender);
        }
        SnapshotSender.Chunk c;
        try {
            c = sender.chunkAt(offset);
        } catch (RuntimeException e) {
            drop(follower);
            throw e;
        }
        if (c.last()) {
            drop(follower);
        }
        return c;
    }

    /** Closes {@code follower}'s transfer, if any. */
    public void drop(int follower) {
        SnapshotSender sender = open.remove(follower);
        if (sender != null) {
            sender.close();
        }
    }

    /** How many transfers are open (tests). */
    int openCount() {
        return open.size();
    }

    @Override
    public void close() {
        for (Integer follower : Map.copyOf(open).keySet()) {
            drop(follower);
        }
    }
}
