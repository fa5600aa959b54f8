package dev.zkr.server.peer;

/**
 * Follower to leader during a SNAP sync (docs/replication.md, SNAP transfer): send me the bytes of your snapshot file
 * {@code zxid} from {@code offset} on. The follower asks for one chunk at a time, each after it has written the one
 * before, so a transfer never queues more than one {@link SnapshotChunk} on the link; offset 0 (re)starts it.
 *
 * @param zxid   the snapshot the leader announced in {@code SyncStart(SNAP, zxid)}
 * @param offset the byte offset in that snapshot file of the chunk wanted
 */
public record SnapshotRequest(long zxid, long offset) {
    public SnapshotRequest {
        if (zxid <= 0 || offset < 0) {
            throw new IllegalArgumentException("bad snapshot request: zxid 0x" + Long.toHexString(zxid) + ", offset "
                    + offset);
        }
    }
}
