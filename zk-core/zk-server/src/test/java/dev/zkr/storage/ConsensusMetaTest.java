package dev.zkr.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * consensus.meta: atomic store, damage detection and the startup rule (docs/replication.md, Persistence rules, P1 and
 * P9).
 */
class ConsensusMetaTest {

    @TempDir
    Path dir;

    private static final ConsensusMeta META = new ConsensusMeta(5, 2, 0x1234_5678_9ABCL, 3);

    @Test
    void storeThenLoadRoundTripsAndReplaces() {
        assertEquals(Optional.empty(), ConsensusMeta.load(dir));
        META.store(dir);
        assertEquals(Optional.of(META), ConsensusMeta.load(dir));
        ConsensusMeta next = META.withVote(6, ConsensusMeta.NO_VOTE);
        next.store(dir);
        assertEquals(Optional.of(next), ConsensusMeta.load(dir));
        assertEquals(ConsensusMeta.BYTES, dir.resolve(ConsensusMeta.FILE).toFile().length());
        assertTrue(Files.notExists(dir.resolve(ConsensusMeta.FILE + ".tmp")));
    }

    @Test
    void aTornTempFileOfAnInterruptedStoreIsIgnoredAndOverwritten() throws Exception {
        META.store(dir);
        byte[] half = new byte[17];
        System.arraycopy(META.withVote(9, 9).encode(), 0, half, 0, half.length);
        Files.write(dir.resolve(ConsensusMeta.FILE + ".tmp"), half);
        assertEquals(Optional.of(META), ConsensusMeta.load(dir));
        assertEquals(Optional.of(META), ConsensusMeta.loadAtStart(dir, false, false));
        META.withVote(9, 9).store(dir);
        assertEquals(9, ConsensusMeta.load(dir).orElseThrow().acceptedEpoch());
    }

    @Test
    void everyDamagedByteOrLengthIsDetected() throws Exception {
        byte[] good = META.encode();
        for (int i = 0; i < good.length; i++) {
            byte[] bad = good.clone();
            bad[i] ^= 0x10;
            Files.write(dir.resolve(ConsensusMeta.FILE), bad);
            assertThrows(ConsensusMetaException.class, () -> ConsensusMeta.load(dir), "flipped byte " + i);
        }
        Files.write(dir.resolve(ConsensusMeta.FILE), java.util.Arrays.copyOf(good, good.length - 1));
        assertThrows(ConsensusMetaException.class, () -> ConsensusMeta.load(dir));
        Files.write(dir.resolve(ConsensusMeta.FILE), new byte[0]);
        assertThrows(ConsensusMetaException.class, () -> ConsensusMeta.loadAtStart(dir, true, false));
    }

    @Test
    void startupRule() throws Exception {
        assertEquals(Optional.empty(), ConsensusMeta.loadAtStart(dir, true, false), "empty data dir: fresh member");
        assertThrows(ConsensusMetaException.class, () -> ConsensusMeta.loadAtStart(dir, false, false),
                "missing meta next to a non-empty log");
        assertEquals(Optional.empty(), ConsensusMeta.loadAtStart(dir, false, true),
                "a standalone server has no vote to lose: it starts from its log");
        META.store(dir);
        assertEquals(Optional.of(META), ConsensusMeta.loadAtStart(dir, false, false));
        byte[] bad = META.encode();
        bad[12] ^= 1;
        Files.write(dir.resolve(ConsensusMeta.FILE), bad);
        assertThrows(ConsensusMetaException.class, () -> ConsensusMeta.loadAtStart(dir, false, true),
                "a damaged meta refuses to start a standalone server too");
        ConsensusMetaException e = assertThrows(ConsensusMetaException.class,
                () -> ConsensusMeta.loadAtStart(dir, false, false));
        assertTrue(e.getMessage().contains(ConsensusMeta.FILE), e.getMessage());
    }

    @Test
    void killDuringStoresLeavesTheLastAcknowledgedStateOrANewerOne() throws Exception {
        for (int round = 0; round < 3; round++) {
            long acked = runAndKill(50 + round * 70);
            ConsensusMeta meta = ConsensusMeta.load(dir).orElseThrow();
            assertTrue(meta.acceptedEpoch() >= acked, meta + " older than acknowledged " + acked);
            assertTrue(meta.acceptedEpoch() <= acked + 1, meta + " newer than any store started after " + acked);
            assertEquals(meta.acceptedEpoch() * 7, meta.votedFor(), "a whole record, not a mix");
            assertEquals(99, meta.ensembleId());
            Files.deleteIfExists(dir.resolve(ConsensusMeta.FILE));
        }
    }

    /** Runs a {@link MetaWriter}, SIGKILLs it after {@code stores} acknowledged stores; returns the last one seen. */
    private long runAndKill(int stores) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-Xmx64m", "-cp", System.getProperty("java.class.path"),
                MetaWriter.class.getName(), dir.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        long last = 0;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(),
                StandardCharsets.US_ASCII))) {
            String line;
            while ((line = out.readLine()) != null) {
                last = Long.parseLong(line.trim());
                if (last == stores) {
                    p.toHandle().destroyForcibly(); // SIGKILL, keeping our end of the pipe open
                }
            }
        } finally {
            p.destroyForcibly();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        }
        return last;
    }
}
