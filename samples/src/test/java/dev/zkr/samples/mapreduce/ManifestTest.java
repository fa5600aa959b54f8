package dev.zkr.samples.mapreduce;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ManifestTest {

    @Test
    void recordsEachPartitionAndTheLastWritersToken() {
        Manifest m = Manifest.EMPTY
                .with(2, new Manifest.Part(120, 40, 7, "worker-1", 17))
                .with(0, new Manifest.Part(90, 30, 5, "worker-3", 21));

        assertEquals(21, m.token());
        assertEquals("""
                # zkr MapReduce output: committed partitions
                token=21
                part-0000 bytes=90 words=30 distinct=5 by=worker-3 token=21
                part-0002 bytes=120 words=40 distinct=7 by=worker-1 token=17
                """, m.encode());
        assertEquals(m, Manifest.decode(m.encode()));
    }

    @Test
    void aRedonePartitionReplacesItsEntry() {
        Manifest m = Manifest.EMPTY.with(1, new Manifest.Part(10, 3, 2, "worker-1", 5))
                .with(1, new Manifest.Part(10, 3, 2, "worker-4", 9));

        assertEquals(Map.of(1, new Manifest.Part(10, 3, 2, "worker-4", 9)), m.partitions());
    }

    @Test
    void admitsTheLastWriterAndLaterHoldersOnly() {
        Manifest m = Manifest.EMPTY.with(0, new Manifest.Part(1, 1, 1, "worker-2", 40));

        assertTrue(Manifest.EMPTY.admits(1));
        assertTrue(m.admits(40), "the last writer again (its second write of one commit)");
        assertTrue(m.admits(41));
        assertFalse(m.admits(39), "a stale holder: someone took the lock after it and wrote");
    }

    @Test
    void rejectsTextThatIsNotAManifest() {
        assertThrows(IllegalArgumentException.class, () -> Manifest.decode("part-0000 bytes=1\n"));
        assertThrows(IllegalArgumentException.class, () -> Manifest.decode("token=3\nhello world\n"));
        assertThrows(IllegalArgumentException.class,
                () -> Manifest.decode("token=3\npart-0000 bytes=1 words=1 distinct=1 by=w token=x\n"));
    }
}
