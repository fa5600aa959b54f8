package dev.zkr.migrate;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A temporary directory next to the target, moved onto the target only when everything was written: a failed run
 * leaves the target as it was (absent or empty). The target must be absent or an empty directory.
 */
final class StagedDir implements AutoCloseable {
    private final Path target;
    private final Path staging;
    private boolean published;

    private StagedDir(Path target, Path staging) {
        this.target = target;
        this.staging = staging;
    }

    /** Checks the target and creates the staging directory beside it. */
    static StagedDir create(Path target) {
        Path abs = target.toAbsolutePath().normalize();
        if (Files.exists(abs)) {
            if (!Files.isDirectory(abs)) {
                throw new MigrationException("--to " + target + " exists and is not a directory");
            }
            try (Stream<Path> entries = Files.list(abs)) {
                if (entries.findAny().isPresent()) {
                    throw new MigrationException("--to " + target + " is not empty; refusing to write into it");
                }
            } catch (IOException e) {
                throw new MigrationException("cannot read --to " + target + ": " + e.getMessage(), e);
            }
        }
        Path parent = abs.getParent();
        try {
            Files.createDirectories(parent);
            return new StagedDir(abs, Files.createTempDirectory(parent, "." + abs.getFileName() + ".staging-"));
        } catch (IOException e) {
            throw new MigrationException("cannot create a staging directory in " + parent + ": " + e, e);
        }
    }

    Path dir() {
        return staging;
    }

    /** Moves the staging directory onto the target (an empty target directory is replaced). */
    void publish() {
        try {
            if (Files.isDirectory(target)) {
                Files.delete(target); // empty, checked at create
            }
            try {
                Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(staging, target);
            }
            published = true;
        } catch (IOException e) {
            throw new MigrationException("cannot move " + staging + " to " + target + ": " + e, e);
        }
    }

    /** Deletes the staging directory unless it was published. */
    @Override
    public void close() {
        if (published || !Files.exists(staging)) {
            return;
        }
        try (Stream<Path> files = Files.walk(staging)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            System.err.println("zkr migrate: could not delete the staging directory " + staging + ": " + e);
        }
    }
}
