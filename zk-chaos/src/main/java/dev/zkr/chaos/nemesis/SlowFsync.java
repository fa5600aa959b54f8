package dev.zkr.chaos.nemesis;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Slow fsync on one server, the same way for zkr and ZooKeeper: a small C shim ({@code slowfsync.c}, compiled with
 * the machine's {@code gcc} when a run asks for it) is LD_PRELOADed into every server JVM; its {@code fsync} and
 * {@code fdatasync} sleep for the milliseconds written in {@code <control dir>/<pid>} before the real call. Making a
 * server slow writes that file; healing deletes it (a restarted server has a new pid, so a kill ends it too).
 */
public final class SlowFsync {

    private final Path library;
    private final Path control;

    private SlowFsync(Path library, Path control) {
        this.library = library;
        this.control = control;
    }

    /** Compiles the shim into {@code dir}; refuses with the reason when it cannot (no gcc, say). */
    public static SlowFsync prepare(Path dir) {
        try {
            Files.createDirectories(dir);
            Path source = dir.resolve("slowfsync.c");
            try (InputStream in = SlowFsync.class.getResourceAsStream("slowfsync.c")) {
                if (in == null) {
                    throw new IllegalStateException("slowfsync.c missing from the jar");
                }
                Files.copy(in, source, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
            Path library = dir.resolve("libslowfsync.so");
            Process gcc = new ProcessBuilder("gcc", "-shared", "-fPIC", "-O2", "-o", library.toString(),
                    source.toString(), "-ldl").redirectErrorStream(true).start();
            String output = new String(gcc.getInputStream().readAllBytes());
            if (!gcc.waitFor(60, TimeUnit.SECONDS) || gcc.exitValue() != 0) {
                throw new IllegalStateException("--nemesis slow-fsync could not compile its shim with gcc: " + output);
            }
            Path control = Files.createDirectories(dir.resolve("control"));
            return new SlowFsync(library, control);
        } catch (IOException e) {
            throw new IllegalStateException("--nemesis slow-fsync needs gcc to build its LD_PRELOAD shim: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** The environment of every server process of the run. */
    public Map<String, String> environment() {
        return Map.of("LD_PRELOAD", library.toString(), "ZKR_SLOW_FSYNC_DIR", control.toString());
    }

    /** Makes every fsync of process {@code pid} take {@code millis} more. */
    public void slow(long pid, long millis) {
        try {
            Files.writeString(control.resolve(Long.toString(pid)), Long.toString(millis));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Ends every slowdown. */
    public void heal() {
        try (var files = Files.list(control)) {
            for (Path f : files.toList()) {
                Files.deleteIfExists(f);
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
