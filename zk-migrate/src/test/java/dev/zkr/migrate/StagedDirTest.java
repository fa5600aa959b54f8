package dev.zkr.migrate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The target appears whole or not at all. */
class StagedDirTest {
    @TempDir
    Path tmp;

    @Test
    void unpublishedStagingIsDeletedAndTheTargetNeverAppears() throws IOException {
        Path to = tmp.resolve("to");
        try (StagedDir staged = StagedDir.create(to)) {
            Files.writeString(Files.createDirectories(staged.dir().resolve("sub")).resolve("f"), "half");
        }
        assertFalse(Files.exists(to));
        assertEquals(List.of(), list(tmp));
    }

    @Test
    void publishMovesEverythingOntoAnEmptyOrMissingTarget() throws IOException {
        Path to = Files.createDirectories(tmp.resolve("to"));
        try (StagedDir staged = StagedDir.create(to)) {
            Files.writeString(staged.dir().resolve("f"), "whole");
            staged.publish();
        }
        assertEquals("whole", Files.readString(to.resolve("f")));
        assertEquals(List.of(to), list(tmp));
    }

    @Test
    void aNonEmptyTargetOrAFileIsRefused() throws IOException {
        Path used = Files.createDirectories(tmp.resolve("used"));
        Files.writeString(used.resolve("keep"), "x");
        MigrationException e = assertThrows(MigrationException.class, () -> StagedDir.create(used));
        assertTrue(e.getMessage().contains("is not empty"), e.getMessage());
        Path file = Files.writeString(tmp.resolve("file"), "x");
        e = assertThrows(MigrationException.class, () -> StagedDir.create(file));
        assertTrue(e.getMessage().contains("not a directory"), e.getMessage());
        assertEquals(2, list(tmp).size());
    }

    private static List<Path> list(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.sorted().toList();
        }
    }
}
