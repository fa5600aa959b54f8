package dev.zkr.storage;

import java.util.List;

/**
 * The log a server's pipeline writes to: records handed over in batches and made durable in the background, each
 * durable point told to one listener; synchronous durable truncation; a commit mark that rides on the next fsync.
 * {@link TxnLog} on disk; an in-memory one in the simulator (zk-server's tests), which loses its unsynced tail on a
 * crash and reports durability after a seeded delay.
 */
public interface LogStore {

    /**
     * Queues records in order (zxids strictly increasing), to be written and fsynced in the background.
     *
     * @throws IllegalArgumentException if a zxid is not above the one before it, or a payload is too big
     * @throws StorageException         if the log is closed or failed earlier
     */
    void appendAll(List<LogRecord> records);

    /** True while records wait to be written (a hint: it may change at once). */
    boolean hasQueued();

    /** Sets the listener told of every durable point and of a failure (at most one; set it before appending). */
    void listen(TxnLog.DurabilityListener listener);

    /**
     * Durably removes every record above {@code zxid} and returns once that is on disk; records queued before go
     * first (and are removed if above it).
     *
     * @throws TruncateBelowCommitException if {@code zxid} is below the commit mark
     */
    void truncateAfter(long zxid);

    /** Sets the commit mark the next written batch carries (it never causes an fsync of its own). */
    void recordCommitMark(long zxid);

    /** The zxid of the last record known to be durable. */
    long durableZxid();
}
