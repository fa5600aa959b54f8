package dev.zkr.storage;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Restores state at startup: the newest valid snapshot, then the log records after the snapshot's zxid — every
 * durable one ({@link #recover}: a standalone server commits only what is durable), or only those up to a bound
 * ({@link #recoverUpTo}, {@link #recoverCommitted}: a replica applies snapshot + log up to max(snapshot zxid,
 * durable commit mark) and keeps the rest of its log as an uncommitted tail, which stays in the log for the caller
 * to resolve: {@code log.read(result.appliedZxid())}).
 *
 * <p>Snapshots are fuzzy (written while transactions keep being applied) and carry the zxid at which they
 * started, so records after that zxid may already be partly in the snapshot; the applier must be idempotent for
 * them (the data tree's txns are). With no valid snapshot, recovery starts from {@code empty} and replays the
 * whole log, which is only possible if the log was never purged; otherwise a {@link StorageException} says so.
 * If the log ends before the snapshot (a follower killed between installing a snapshot received from its leader and
 * restarting its log, docs/replication.md, Persistence rules, P3; or records lost to outside damage but covered by the
 * snapshot), recovery warns and restarts the log after the snapshot ({@link TxnLog#restartAfter}): the older records
 * are all in the snapshot, and a log with a gap could not be read from its start.
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
     * @param lastZxid     the last zxid in the log (or the snapshot's, if larger), the last logged zxid: continue
     *                     numbering after it
     * @param replayed     how many log records were applied
     * @param appliedZxid  the zxid the state reflects: the last record applied, or the snapshot's zxid; records
     *                     after it up to {@code lastZxid} are the uncommitted tail (none for {@link #recover})
     * @param commitMark   the durable commit mark the log reported at open ({@link TxnLog#commitMarkAtOpen()})
     */
    public record Result<T>(T state, long snapshotZxid, long lastZxid, long replayed, long appliedZxid,
                            long commitMark) {

        /** The last zxid in the log: what a replica reports as its lastLoggedZxid. */
        public long lastLoggedZxid() {
            return lastZxid;
        }

        /** True when the log holds records after {@link #appliedZxid()} that were not applied. */
        public boolean hasUncommittedTail() {
            return lastZxid > appliedZxid;
        }
    }

    private Recovery() {
    }

    /**
     * Loads the newest valid snapshot (or {@code empty.get()}), replays every durable log record after it with
     * {@code applier} (a standalone server: everything durable is committed).
     *
     * @throws StorageException    if the log does not reach back to the snapshot (purged history)
     * @throws CorruptLogException if replay meets damaged records
     */
    public static <T> Result<T> recover(SnapshotStore snapshots, TxnLog log, SnapshotReader<T> reader,
                                        Supplier<T> empty, Applier<T> applier) {
        return recoverUpTo(snapshots, log, reader, empty, applier, Long.MAX_VALUE);
    }

    /**
     * Like {@link #recoverUpTo} with the bound a replica uses (docs/replication.md, Persistence rules, P7): the durable
     * commit mark found when the log was opened. A log whose newest records are in v1 segments counts them all as
     * committed.
     */
    public static <T> Result<T> recoverCommitted(SnapshotStore snapshots, TxnLog log, SnapshotReader<T> reader,
                                                 Supplier<T> empty, Applier<T> applier) {
        return recoverUpTo(snapshots, log, reader, empty, applier, log.commitMarkAtOpen());
    }

    /**
     * Loads the newest valid snapshot (or {@code empty.get()}) and replays the log records after it up to
     * {@code max(snapshot zxid, upTo)}; later records stay in the log, reported as the uncommitted tail.
     *
     * @throws StorageException    if the log does not reach back to the snapshot (purged history)
     * @throws CorruptLogException if replay meets damaged records
     */
    public static <T> Result<T> recoverUpTo(SnapshotStore snapshots, TxnLog log, SnapshotReader<T> reader,
                                            Supplier<T> empty, Applier<T> applier, long upTo) {
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
            // a snapshot installed from a leader before the log was restarted after it (P3 b done, c not), or
            // outside damage (a torn tail holds unacknowledged, hence unapplied, records): the snapshot has the
            // newer state and covers every older record; restart the log after it (never reusing zxids)
            LOG.warn("Log in {} ends at zxid 0x{}, before snapshot 0x{}; records in between exist only in the "
                    + "snapshot, restarting the log after it", log.directory(), Long.toHexString(logLast),
                    Long.toHexString(base));
            log.restartAfter(base);
            logLast = base;
        }
        long replayed = 0;
        long last = base;
        long bound = Math.max(base, upTo);
        try (LogReader records = log.read(base)) {
            while (records.hasNext()) {
                LogRecord r = records.next();
                if (r.zxid() > bound) {
                    break;
                }
                applier.apply(state, r);
                last = r.zxid();
                replayed++;
            }
        }
        long lastLogged = Math.max(last, logLast);
        if (lastLogged > last) {
            LOG.info("Recovered from {} and {} log records up to zxid 0x{}; the log's tail up to 0x{} is not known "
                    + "committed and was not applied", snap.isPresent() ? "snapshot 0x" + Long.toHexString(base)
                    : "an empty state", replayed, Long.toHexString(last), Long.toHexString(lastLogged));
        } else {
            LOG.info("Recovered from {} and {} log records; last zxid 0x{}",
                    snap.isPresent() ? "snapshot 0x" + Long.toHexString(base) : "an empty state", replayed,
                    Long.toHexString(lastLogged));
        }
        return new Result<>(state, snap.isPresent() ? base : -1, lastLogged, replayed, last,
                log.commitMarkAtOpen());
    }
}
