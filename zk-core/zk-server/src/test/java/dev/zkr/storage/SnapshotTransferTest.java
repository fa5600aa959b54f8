package dev.zkr.storage;

import static dev.zkr.storage.LogTesting.payload;
import static dev.zkr.storage.LogTesting.readAll;
import static dev.zkr.storage.SnapTransferFixture.CHUNK;
import static dev.zkr.storage.SnapTransferFixture.COMMIT;
import static dev.zkr.storage.SnapTransferFixture.FOLLOWER_LAST;
import static dev.zkr.storage.SnapTransferFixture.FOLLOWER_SNAPSHOT;
import static dev.zkr.storage.SnapTransferFixture.LEADER_SNAPSHOT;
import static dev.zkr.storage.SnapTransferFixture.SMALL;
import static dev.zkr.storage.SnapTransferFixture.range;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableSet;
import java.util.concurrent.ConcurrentSkipListSet;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SNAP transfer between real data directories: {@link SnapshotSender} to {@link SnapshotReceiver} (P3). */
class SnapshotTransferTest {

    @TempDir
    Path root;

    private SnapshotStore leader;
    private SnapshotStore follower;

    @BeforeEach
    void prepare() {
        SnapTransferFixture.prepare(root);
        leader = SnapshotStore.open(SnapTransferFixture.leaderSnapshots(root));
        follower = SnapshotStore.open(SnapTransferFixture.followerSnapshots(root));
    }

    private TxnLog followerLog() {
        return TxnLog.open(SnapTransferFixture.followerLog(root), SMALL);
    }

    private SnapshotReceiver<NavigableSet<Long>> receiver(TxnLog log) {
        return new SnapshotReceiver<>(follower, log, LEADER_SNAPSHOT, RecoveryTest::read);
    }

    private List<String> snapshotDirFiles() throws IOException {
        try (var s = Files.list(follower.directory())) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void theSnapshotCrossesInChunksAndTheFollowerContinuesFromIt() throws IOException {
        List<SnapshotSender.Chunk> chunks = new ArrayList<>();
        ByteArrayOutputStream whole = new ByteArrayOutputStream();
        try (SnapshotSender sender = SnapshotSender.open(leader, LEADER_SNAPSHOT, CHUNK)) {
            while (sender.hasNext()) {
                SnapshotSender.Chunk c = sender.next();
                assertEquals(whole.size(), c.offset());
                assertTrue(c.data().length <= CHUNK);
                whole.write(c.data());
                chunks.add(c);
            }
            assertEquals(sender.size(), whole.size());
        }
        assertTrue(chunks.size() > 2, "chunks: " + chunks.size());
        assertTrue(chunks.get(chunks.size() - 1).last());
        assertEquals(1, chunks.stream().filter(SnapshotSender.Chunk::last).count());
        assertArrayEquals(Files.readAllBytes(leader.fileOf(LEADER_SNAPSHOT)), whole.toByteArray(), "the file as is");

        try (TxnLog log = followerLog()) {
            assertEquals(FOLLOWER_LAST, log.lastZxid());
            NavigableSet<Long> loaded = SnapTransferFixture.snap(leader, follower, log);
            assertEquals(range(1, LEADER_SNAPSHOT), loaded);
            // P3 c: the log restarted after the snapshot, no gap from its start
            assertEquals(LEADER_SNAPSHOT, log.startsAfterZxid());
            assertEquals(LEADER_SNAPSHOT, log.lastZxid());
            assertEquals(LEADER_SNAPSHOT, log.durableZxid());
            assertEquals(List.of(), readAll(log, log.startsAfterZxid()));
            assertEquals(1, log.segmentFiles().size());
            for (long z = LEADER_SNAPSHOT + 1; z <= LEADER_SNAPSHOT + 20; z++) {
                log.recordCommitMark(LEADER_SNAPSHOT + 10);
                log.appendAsync(z, payload(z)).join();
            }
        }
        assertEquals(List.of("snapshot." + StorageFiles.hex(FOLLOWER_SNAPSHOT),
                "snapshot." + StorageFiles.hex(LEADER_SNAPSHOT)), snapshotDirFiles());
        var r = SnapTransferFixture.recoverFollower(root);
        assertEquals(LEADER_SNAPSHOT, r.snapshotZxid());
        assertEquals(range(1, LEADER_SNAPSHOT + 10), r.state(), "snapshot + records up to the commit mark");
        assertEquals(LEADER_SNAPSHOT + 20, r.lastLoggedZxid());
    }

    @Test
    void aMissingOrDamagedSnapshotIsNotSent() throws IOException {
        NoSuchSnapshotException missing = assertThrows(NoSuchSnapshotException.class,
                () -> SnapshotSender.open(leader, LEADER_SNAPSHOT + 1));
        assertTrue(missing.getMessage().contains("no snapshot 0xc9"), missing.getMessage());
        TornTailTest.flip(leader.fileOf(LEADER_SNAPSHOT), 40, 0x10);
        assertThrows(CorruptSnapshotException.class, () -> SnapshotSender.open(leader, LEADER_SNAPSHOT));
    }

    @Test
    void aChunkOutOfPlaceIsRefusedAndTheTransferStartsOver() throws IOException {
        try (TxnLog log = followerLog(); SnapshotSender sender = SnapshotSender.open(leader, LEADER_SNAPSHOT, CHUNK);
             SnapshotReceiver<NavigableSet<Long>> receiver = receiver(log)) {
            log.truncateAfter(COMMIT);
            SnapshotSender.Chunk first = sender.next();
            SnapshotSender.Chunk second = sender.next();
            assertTrue(receiver.accept(first.zxid(), first.offset(), first.data(), first.last()).isEmpty());
            assertEquals(CHUNK, receiver.offset());
            assertTrue(Files.exists(follower.partFile(LEADER_SNAPSHOT)));
            // the same chunk again (a duplicate): wrong offset
            SnapshotTransferException e = assertThrows(SnapshotTransferException.class,
                    () -> receiver.accept(first.zxid(), first.offset(), first.data(), first.last()));
            assertTrue(e.getMessage().contains("at offset " + CHUNK), e.getMessage());
            assertEquals(0, receiver.offset());
            assertFalse(Files.exists(follower.partFile(LEADER_SNAPSHOT)));
            // another snapshot's chunk
            assertThrows(SnapshotTransferException.class,
                    () -> receiver.accept(LEADER_SNAPSHOT + 1, 0, first.data(), false));
            assertThrows(SnapshotTransferException.class,
                    () -> receiver.accept(second.zxid(), second.offset(), second.data(), second.last()));
            // from the start again: installs
            NavigableSet<Long> loaded = null;
            while (loaded == null) {
                SnapshotSender.Chunk c = sender.chunkAt(receiver.offset());
                loaded = receiver.accept(c.zxid(), c.offset(), c.data(), c.last()).orElse(null);
            }
            assertEquals(range(1, LEADER_SNAPSHOT), loaded);
            assertThrows(IllegalStateException.class, () -> receiver.accept(LEADER_SNAPSHOT, 0, new byte[1], true));
        }
    }

    @Test
    void bytesDamagedInTransitInstallNothing() throws IOException {
        try (TxnLog log = followerLog(); SnapshotSender sender = SnapshotSender.open(leader, LEADER_SNAPSHOT, CHUNK);
             SnapshotReceiver<NavigableSet<Long>> receiver = receiver(log)) {
            log.truncateAfter(COMMIT);
            CorruptSnapshotException e = assertThrows(CorruptSnapshotException.class, () -> {
                while (sender.hasNext()) {
                    SnapshotSender.Chunk c = sender.next();
                    byte[] data = c.data().clone();
                    if (c.offset() == CHUNK) {
                        data[7] ^= 1;
                    }
                    receiver.accept(c.zxid(), c.offset(), data, c.last());
                }
            });
            assertTrue(e.getMessage().contains("checksum"), e.getMessage());
            assertEquals(0, receiver.offset());
            assertEquals(List.of("snapshot." + StorageFiles.hex(FOLLOWER_SNAPSHOT)), snapshotDirFiles());
            assertEquals(COMMIT, log.lastZxid(), "the log is not restarted");
            assertEquals(0, log.startsAfterZxid());
        }
        var r = SnapTransferFixture.recoverFollower(root);
        assertEquals(range(1, COMMIT), r.state());
    }

    @Test
    void aSnapshotTheReaderCannotParseInstallsNothing() throws IOException {
        leader.write(LEADER_SNAPSHOT, out -> out.writeLong(7)); // intact file, body the reader cannot parse
        try (TxnLog log = followerLog()) {
            assertThrows(CorruptSnapshotException.class, () -> SnapTransferFixture.snap(leader, follower, log));
            assertEquals(COMMIT, log.lastZxid());
        }
        assertEquals(List.of("snapshot." + StorageFiles.hex(FOLLOWER_SNAPSHOT)), snapshotDirFiles());
    }

    @Test
    void aLogThatStillReachesTheSnapshotIsRefused() throws IOException {
        leader.write(70, RecoveryTest.bodyOf(range(1, 70)));
        try (TxnLog log = followerLog(); SnapshotSender sender = SnapshotSender.open(leader, 70, CHUNK);
             SnapshotReceiver<NavigableSet<Long>> receiver = new SnapshotReceiver<>(follower, log, 70,
                     RecoveryTest::read)) {
            SnapshotSender.Chunk c = sender.next();
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> receiver.accept(c.zxid(), c.offset(), c.data(), c.last()));
            assertTrue(e.getMessage().contains("P3 a"), e.getMessage());
            assertEquals(FOLLOWER_LAST, log.lastZxid());
        }
        assertEquals(List.of("snapshot." + StorageFiles.hex(FOLLOWER_SNAPSHOT)), snapshotDirFiles());
    }

    @Test
    void anAbandonedTransferLeavesNothingBehind() throws IOException {
        try (TxnLog log = followerLog(); SnapshotSender sender = SnapshotSender.open(leader, LEADER_SNAPSHOT, CHUNK)) {
            log.truncateAfter(COMMIT);
            SnapshotReceiver<NavigableSet<Long>> closed = receiver(log);
            SnapshotSender.Chunk c = sender.next();
            closed.accept(c.zxid(), c.offset(), c.data(), c.last());
            closed.close();
            assertFalse(Files.exists(follower.partFile(LEADER_SNAPSHOT)));
            SnapshotReceiver<NavigableSet<Long>> dropped = receiver(log); // as if the process died here
            dropped.accept(c.zxid(), c.offset(), c.data(), c.last());
            assertTrue(Files.exists(follower.partFile(LEADER_SNAPSHOT)));
        }
        SnapshotStore reopened = SnapshotStore.open(follower.directory());
        assertFalse(Files.exists(reopened.partFile(LEADER_SNAPSHOT)));
        assertEquals(List.of(FOLLOWER_SNAPSHOT), reopened.list());
        assertEquals(range(1, COMMIT), SnapTransferFixture.recoverFollower(root).state());
    }

    @Test
    void theLeaderKeepsOneOpenSenderPerFollowerUntilTheLastChunk() throws IOException {
        byte[] file = Files.readAllBytes(leader.fileOf(LEADER_SNAPSHOT));
        try (SnapshotSenders senders = new SnapshotSenders(leader, CHUNK)) {
            ByteArrayOutputStream one = new ByteArrayOutputStream();
            SnapshotSender.Chunk first = senders.chunk(1, LEADER_SNAPSHOT, 0);
            one.write(first.data());
            // follower 2 starts meanwhile; the snapshot file is deleted by retention: both transfers go on
            SnapshotSender.Chunk other = senders.chunk(2, LEADER_SNAPSHOT, 0);
            Files.delete(leader.fileOf(LEADER_SNAPSHOT));
            assertEquals(2, senders.openCount());
            SnapshotSender.Chunk c = first;
            while (!c.last()) {
                c = senders.chunk(1, LEADER_SNAPSHOT, one.size());
                one.write(c.data());
            }
            assertArrayEquals(file, one.toByteArray());
            assertEquals(1, senders.openCount(), "closed after its last chunk");
            assertEquals(CHUNK, senders.chunk(2, LEADER_SNAPSHOT, other.data().length).offset());
            senders.drop(2); // its link went down
            assertEquals(0, senders.openCount());
            assertThrows(NoSuchSnapshotException.class, () -> senders.chunk(2, LEADER_SNAPSHOT, 0));
            assertEquals(0, senders.openCount());
        }
    }

    @Test
    void theFollowerLogRecoversToItsCommitPointBeforeAnyTransfer() {
        var r = SnapTransferFixture.recoverFollower(root);
        assertEquals(range(1, COMMIT), r.state());
        assertEquals(FOLLOWER_SNAPSHOT, r.snapshotZxid());
        assertEquals(FOLLOWER_LAST, r.lastLoggedZxid());
        assertTrue(new ConcurrentSkipListSet<>(r.state()).size() < LEADER_SNAPSHOT);
    }
}
