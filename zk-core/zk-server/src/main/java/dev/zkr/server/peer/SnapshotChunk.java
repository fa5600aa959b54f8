package dev.zkr.server.peer;

/**
 * Leader to follower during a SNAP sync: the bytes of snapshot file {@code zxid} at {@code offset} (the file as it
 * is on the leader's disk, header and checksum included), the answer to one {@link SnapshotRequest}. {@code last}
 * marks the chunk that ends the file.
 *
 * @param zxid   the snapshot's zxid
 * @param offset where {@code data} starts in the file
 * @param data   at most {@link #MAX_DATA} bytes (do not modify)
 * @param last   true when {@code data} ends the file
 */
public record SnapshotChunk(long zxid, long offset, byte[] data, boolean last) {

    /** The most data one chunk may carry: well under {@link PeerConfig#DEFAULT_MAX_FRAME_SIZE}. */
    public static final int MAX_DATA = dev.zkr.storage.SnapshotSender.CHUNK_BYTES;

    public SnapshotChunk {
        if (zxid <= 0 || offset < 0 || data == null || data.length > MAX_DATA) {
            throw new IllegalArgumentException("bad snapshot chunk: zxid 0x" + Long.toHexString(zxid) + ", offset "
                    + offset + ", " + (data == null ? "no data" : data.length + " bytes"));
        }
    }

    @Override
    public String toString() {
        return "SnapshotChunk[zxid=0x" + Long.toHexString(zxid) + ", offset=" + offset + ", " + data.length
                + " bytes" + (last ? ", last" : "") + "]";
    }
}
