package dev.zkr.storage;

import static dev.zkr.storage.LogTesting.payload;

import java.nio.file.Path;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.stream.LongStream;

/**
 * A follower and a leader data directory for the SNAP tests. The state is the set of applied zxids (as in
 * {@link RecoveryTest}). The follower has snapshot {@link #FOLLOWER_SNAPSHOT} and log records 1..{@link #FOLLOWER_LAST}
 * of which 1..{@link #COMMIT} are committed (the rest is an uncommitted tail, over several segments); the leader has
 * snapshot {@link #LEADER_SNAPSHOT} of 1..200.
 */
final class SnapTransferFixture {

    static final LogConfig SMALL = LogConfig.defaults().withSegmentBytes(6144).withPreallocateBytes(0);
    static final long FOLLOWER_SNAPSHOT = 30;
    static final long COMMIT = 60;
    static final long FOLLOWER_LAST = 80;
    static final long LEADER_SNAPSHOT = 200;
    /** Small chunks, so a transfer takes several. */
    static final int CHUNK = 512;

    private SnapTransferFixture() {
    }

    static NavigableSet<Long> range(long from, long to) {
        NavigableSet<Long> s = new ConcurrentSkipListSet<>();
        LongStream.rangeClosed(from, to).forEach(s::add);
        return s;
    }

    static Path followerLog(Path root) {
        return root.resolve("follower").resolve("log");
    }

    static Path followerSnapshots(Path root) {
        return root.resolve("follower").resolve("snapshots");
    }

    static Path leaderSnapshots(Path root) {
        return root.resolve("leader").resolve("snapshots");
    }

    /** Writes both data directories under {@code root}. */
    static void prepare(Path root) {
        try (TxnLog log = TxnLog.open(followerLog(root), SMALL)) {
            for (long z = 1; z <= FOLLOWER_LAST; z++) {
                log.recordCommitMark(Math.min(COMMIT, z));
                log.appendAsync(z, payload(z)).join();
            }
        }
        SnapshotStore.open(followerSnapshots(root)).write(FOLLOWER_SNAPSHOT,
                RecoveryTest.bodyOf(range(1, FOLLOWER_SNAPSHOT)));
        SnapshotStore.open(leaderSnapshots(root)).write(LEADER_SNAPSHOT,
                RecoveryTest.bodyOf(range(1, LEADER_SNAPSHOT)));
    }

    /**
     * What the server does for a SNAP sync, without the network: P3 a (the Ready's truncation after the commit
     * point), then request chunk after chunk from the leader's sender until the receiver has installed it.
     */
    static NavigableSet<Long> snap(SnapshotStore leader, SnapshotStore follower, TxnLog log) {
        log.truncateAfter(COMMIT);
        try (SnapshotSender sender = SnapshotSender.open(leader, LEADER_SNAPSHOT, CHUNK);
             SnapshotReceiver<NavigableSet<Long>> receiver = new SnapshotReceiver<>(follower, log, LEADER_SNAPSHOT,
                     RecoveryTest::read)) {
            while (true) {
                SnapshotSender.Chunk c = sender.chunkAt(receiver.offset());
                Optional<NavigableSet<Long>> done = receiver.accept(c.zxid(), c.offset(), c.data(), c.last());
                if (done.isPresent()) {
                    return done.get();
                }
            }
        }
    }

    /** Recovery as a replica does it at startup (P7). */
    static Recovery.Result<NavigableSet<Long>> recoverFollower(Path root) {
        try (TxnLog log = TxnLog.open(followerLog(root), SMALL)) {
            return Recovery.recoverCommitted(SnapshotStore.open(followerSnapshots(root)), log, RecoveryTest::read,
                    ConcurrentSkipListSet::new, RecoveryTest::apply);
        }
    }
}
