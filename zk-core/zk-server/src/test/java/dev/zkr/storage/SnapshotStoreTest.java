package dev.zkr.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInput;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SnapshotStoreTest {

    @TempDir
    Path dir;

    /** Body: a count and that many longs (the "state" is the list). */
    static SnapshotWriter body(List<Long> values) {
        return out -> {
            out.writeInt(values.size());
            for (long v : values) {
                out.writeLong(v);
            }
        };
    }

    static List<Long> readBody(long zxid, DataInput in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > 10_000_000) {
            throw new IOException("bad count " + n);
        }
        Long[] values = new Long[n];
        for (int i = 0; i < n; i++) {
            values[i] = in.readLong();
        }
        return List.of(values);
    }

    @Test
    void writeAndLoadNewest() {
        SnapshotStore store = SnapshotStore.open(dir);
        assertTrue(store.loadNewestValid(SnapshotStoreTest::readBody).isEmpty());
        store.write(10, body(List.of(1L, 2L)));
        store.write(0x20, body(List.of(3L, 4L, 5L)));
        assertEquals(List.of(0x20L, 10L), store.list());
        Optional<Snapshot<List<Long>>> s = store.loadNewestValid(SnapshotStoreTest::readBody);
        assertEquals(0x20, s.orElseThrow().zxid());
        assertEquals(List.of(3L, 4L, 5L), s.get().state());
        assertTrue(Files.exists(dir.resolve("snapshot.0000000000000020")));
    }

    @Test
    void corruptNewestFallsBackToOlderWithOneWarning() throws IOException {
        SnapshotStore store = SnapshotStore.open(dir);
        store.write(1, body(List.of(1L)));
        store.write(2, body(List.of(1L, 2L)));
        store.write(3, body(List.of(1L, 2L, 3L)));
        TornTailTest.flip(store.fileOf(3), 20, 0x08); // inside the body
        var loaded = LogTesting.captureStderr(() -> store.loadNewestValid(SnapshotStoreTest::readBody));
        assertEquals(2, loaded.value().orElseThrow().zxid());
        assertEquals(1, loaded.lines("Skipping damaged snapshot"), loaded.stderr());
        assertTrue(loaded.stderr().contains("snapshot.0000000000000003"));
    }

    @Test
    void truncatedAndUnreadableSnapshotsAreSkipped() throws IOException {
        SnapshotStore store = SnapshotStore.open(dir);
        store.write(1, body(List.of(7L)));
        store.write(2, body(List.of(1L, 2L)));
        store.write(3, body(List.of(1L, 2L, 3L)));
        try (FileChannel ch = FileChannel.open(store.fileOf(3), StandardOpenOption.WRITE)) {
            ch.truncate(ch.size() - 3);
        }
        // snapshot 2 is intact on disk but its body does not parse with this reader
        SnapshotReader<List<Long>> picky = (zxid, in) -> {
            if (zxid == 2) {
                throw new IOException("unsupported body");
            }
            return readBody(zxid, in);
        };
        var loaded = LogTesting.captureStderr(() -> store.loadNewestValid(picky));
        assertEquals(1, loaded.value().orElseThrow().zxid());
        assertEquals(List.of(7L), loaded.value().get().state());
        assertEquals(2, loaded.lines("Skipping"), loaded.stderr());
    }

    @Test
    void allCorruptMeansNone() throws IOException {
        SnapshotStore store = SnapshotStore.open(dir);
        store.write(1, body(List.of(7L)));
        store.write(2, body(List.of(8L)));
        Files.write(store.fileOf(1), new byte[] {1, 2, 3});
        TornTailTest.flip(store.fileOf(2), Files.size(store.fileOf(2)) - 5, 0x01);
        assertTrue(store.loadNewestValid(SnapshotStoreTest::readBody).isEmpty());
    }

    @Test
    void failingBodyLeavesNoFileAndThrowsStorageException() throws IOException {
        SnapshotStore store = SnapshotStore.open(dir);
        StorageException e = assertThrows(StorageException.class, () -> store.write(5, out -> {
            out.writeLong(1);
            throw new IOException("tree serialization failed");
        }));
        assertTrue(e.getMessage().contains("tree serialization failed"), e.getMessage());
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(0, files.count());
        }
    }

    @Test
    void readerSeesOnlyTheBody() {
        SnapshotStore store = SnapshotStore.open(dir);
        store.write(9, out -> out.writeUTF("hello"));
        String s = store.loadNewestValid((zxid, in) -> {
            String v = in.readUTF();
            assertThrows(java.io.EOFException.class, in::readByte);
            return v;
        }).orElseThrow().state();
        assertEquals("hello", s);
    }

    @Test
    void retainKeepsTheNewest() {
        SnapshotStore store = SnapshotStore.open(dir);
        for (long z = 1; z <= 5; z++) {
            store.write(z * 10, body(List.of(z)));
        }
        assertEquals(30, store.retain(3).orElseThrow());
        assertEquals(List.of(50L, 40L, 30L), store.list());
        assertEquals(30, store.retain(10).orElseThrow());
        assertFalse(SnapshotStore.open(dir).list().isEmpty());
    }

    @Test
    void leftoverTempFilesAreRemovedAtOpen() throws IOException {
        Files.write(dir.resolve("snapshot.0000000000000007.tmp"), new byte[10]);
        SnapshotStore store = SnapshotStore.open(dir);
        assertTrue(store.list().isEmpty());
        assertFalse(Files.exists(dir.resolve("snapshot.0000000000000007.tmp")));
    }
}
