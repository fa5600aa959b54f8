package dev.zkr.storage;

/**
 * Settings of a {@link TxnLog}.
 *
 * @param segmentBytes    a segment is closed and a new one started once it would grow past this size
 *                        (a single larger batch still goes into one segment); default 64 MiB
 * @param preallocateBytes the active segment is grown with zeros in chunks of this size, so that an fsync does not
 *                        also have to commit a file size change; 0 disables it; default 4 MiB
 * @param retainTxns      the log retention window for follower catch-up: purging keeps at least this many
 *                        records at or before the newest snapshot, even where the snapshots alone would let them
 *                        go (whole segments are kept, so usually more); 0 (default) = snapshots alone decide
 */
public record LogConfig(long segmentBytes, long preallocateBytes, long retainTxns) {

    /** Default segment size: 64 MiB. */
    public static final long DEFAULT_SEGMENT_BYTES = 64L << 20;
    /** Default preallocation chunk: 4 MiB. */
    public static final long DEFAULT_PREALLOCATE_BYTES = 4L << 20;

    public LogConfig {
        if (segmentBytes < 4096) {
            throw new IllegalArgumentException("segmentBytes must be >= 4096: " + segmentBytes);
        }
        if (preallocateBytes < 0) {
            throw new IllegalArgumentException("preallocateBytes must be >= 0: " + preallocateBytes);
        }
        if (retainTxns < 0) {
            throw new IllegalArgumentException("retainTxns must be >= 0: " + retainTxns);
        }
    }

    public LogConfig(long segmentBytes, long preallocateBytes) {
        this(segmentBytes, preallocateBytes, 0);
    }

    /** The defaults: 64 MiB segments, 4 MiB preallocation. */
    public static LogConfig defaults() {
        return new LogConfig(DEFAULT_SEGMENT_BYTES, DEFAULT_PREALLOCATE_BYTES);
    }

    public LogConfig withSegmentBytes(long bytes) {
        return new LogConfig(bytes, preallocateBytes, retainTxns);
    }

    public LogConfig withPreallocateBytes(long bytes) {
        return new LogConfig(segmentBytes, bytes, retainTxns);
    }

    public LogConfig withRetainTxns(long txns) {
        return new LogConfig(segmentBytes, preallocateBytes, txns);
    }
}
