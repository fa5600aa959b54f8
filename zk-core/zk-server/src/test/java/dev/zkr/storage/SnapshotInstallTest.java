package dev.zkr.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.NavigableSet;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SnapshotStore#install}: a snapshot file received from another server (docs/replication.md, Persistence rules,
 * P3).
 */
class SnapshotInstallTest {

    @TempDir
    Path dir;

    private byte[] leaderSnapshot(long zxid) throws IOException {
        SnapshotStore leader = SnapshotStore.open(dir.resolve("leader"));
        NavigableSet<Long> state = new ConcurrentSkipListSet<>();
        LongStream.rangeClosed(1, zxid).forEach(state::add);
        return Files.readAllBytes(leader.write(zxid, RecoveryTest.bodyOf(state)));
    }

    private static List<String> files(SnapshotStore store) throws IOException {
        try (var s = Files.list(store.directory())) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void anInstalledSnapshotIsLoadedLikeALocalOne() throws IOException {
        byte[] bytes = leaderSnapshot(500);
        SnapshotStore follower = SnapshotStore.open(dir.resolve("follower"));
        follower.install(500, new ByteArrayInputStream(bytes));
        Snapshot<NavigableSet<Long>> loaded = follower.loadNewestValid(RecoveryTest::read).orElseThrow();
        assertEquals(500, loaded.zxid());
        assertEquals(500, loaded.state().size());
        assertEquals(List.of("snapshot.00000000000001f4"), files(follower));
        follower.install(500, new ByteArrayInputStream(bytes)); // again: replaces it
        assertEquals(List.of(500L), follower.list());
    }

    @Test
    void damagedOrMislabelledBytesAreRefusedAndLeaveNothing() throws IOException {
        byte[] bytes = leaderSnapshot(300);
        SnapshotStore follower = SnapshotStore.open(dir.resolve("follower"));
        byte[] flipped = bytes.clone();
        flipped[bytes.length / 2] ^= 4;
        assertThrows(CorruptSnapshotException.class, () -> follower.install(300, new ByteArrayInputStream(flipped)));
        byte[] cut = Arrays.copyOf(bytes, bytes.length - 5);
        assertThrows(CorruptSnapshotException.class, () -> follower.install(300, new ByteArrayInputStream(cut)));
        assertThrows(CorruptSnapshotException.class, () -> follower.install(301, new ByteArrayInputStream(bytes)));
        assertEquals(List.of(), files(follower));
    }
}
