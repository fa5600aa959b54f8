package dev.zkr.storage;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Restores state at startup: the newest valid snapshot, then every log record after the snapshot's zxid.
 *
 * <p>Snapshots are fuzzy (written while transactions keep being applied) and carry the zxid at which they
 * started, so records after that zxid may already be partly in the snapshot; the applier must be idempotent for
 * them (the data tree's txns are). With no valid snapshot, recovery starts from {@code empty} and replays the
 * whole log, which is only possible if the log was never purged; otherwise a {@link StorageException} says so.
 * If the log ends before the snapshot (records lost to outside damage but covered by the snapshot), recovery warns
 * and continues the log after the snapshot ({@link TxnLog#continueAfter}).
 */
public final class Recovery {

    private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);

    /** Applies one replayed record to the state. */
    @FunctionalInterface
    public interface Applier<T> {
        void apply(T state, LogRecord record);
    }

    /**
     * The outcome of recovery.
     *
     * @param state        the restored state
     * @param snapshotZxid zxid of the snapshot used, or -1 when recovery started from the empty state
     * @param lastZxid     the last zxid in the log (or the snapshot's, if larger): continue numbering after it
     * @param replayed     how many log records were applied
     */
    public record Result<T>(T state, long snapshotZxid, long lastZxid, long replayed) {
    }

    private Recovery() {
    }

    /**
     * Loads the newest valid snapshot (or {@code empty.get()}), replays the log after it with {@code applier}.
     *
     * @throws StorageException    if the log does not reach back to the snapshot (purged history)
     * @throws CorruptLogException if replay meets damaged records
     */
    public static <T> Result<T> recover(SnapshotStore snapshots, TxnLog log, SnapshotReader<T> reader,
                                        Supplier<T> empty, Applier<T> applier) {
        Objects.requireNonNull(snapshots, "snapshots");
        Objects.requireNonNull(log, "log");
        Objects.requireNonNull(reader, "reader");
        Objects.requireNonNull(empty, "empty");
        Objects.requireNonNull(applier, "applier");
        Optional<Snapshot<T>> snap = snapshots.loadNewestValid(reader);
        long base = snap.map(Snapshot::zxid).orElse(0L);
        T state = snap.isPresent() ? snap.get().state() : empty.get();
        long logStart = log.startsAfterZxid();
        if (base < logStart) {
            throw new StorageException(snap.isPresent()
                    ? "snapshot 0x" + Long.toHexString(base) + " is older than the log history, which starts after 0x"
                        + Long.toHexString(logStart) + " in " + log.directory()
                    : "no valid snapshot in " + snapshots.directory() + " and the log in " + log.directory()
                        + " was purged up to 0x" + Long.toHexString(logStart) + "; cannot recover");
        }
        long logLast = log.lastZxid();
        if (logLast < base) {
            // only after outside damage (a torn tail holds unacknowledged, hence unapplied, records): the snapshot
            // has the newer state; continue the log after it, leaving a visible gap instead of reusing zxids
            LOG.warn("Log in {} ends at zxid 0x{}, before snapshot 0x{}; records in between exist only in the "
                    + "snapshot, continuing the log after it", log.directory(), Long.toHexString(logLast),
                    Long.toHexString(base));
            log.continueAfter(base);
            logLast = base;
        }
        long replayed = 0;
        long last = base;
        try (LogReader records = log.read(base)) {
            while (records.hasNext()) {
                LogRecord r = records.next();
                applier.apply(state, r);
                last = r.zxid();
                replayed++;
            }
        }
        LOG.info("Recovered from {} and {} log records; last zxid 0x{}",
                snap.isPresent() ? "snapshot 0x" + Long.toHexString(base) : "an empty state", replayed,
                Long.toHexString(Math.max(last, logLast)));
        return new Result<>(state, snap.isPresent() ? base : -1, Math.max(last, logLast), replayed);
    }
}
