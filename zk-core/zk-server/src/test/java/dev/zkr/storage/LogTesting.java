package dev.zkr.storage;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;

/** Helpers for the storage tests. */
final class LogTesting {

    private LogTesting() {
    }

    /** A deterministic payload for a zxid: length 0..299, content derived from the zxid. */
    static byte[] payload(long zxid) {
        int len = (int) ((zxid * 7919) % 300);
        byte[] b = new byte[len];
        for (int i = 0; i < len; i++) {
            b[i] = (byte) (zxid * 31 + i);
        }
        return b;
    }

    static List<LogRecord> readAll(TxnLog log, long from) {
        List<LogRecord> out = new ArrayList<>();
        try (LogReader r = log.read(from)) {
            r.forEachRemaining(out::add);
        }
        return out;
    }

    /** Runs {@code action} capturing what SLF4J-simple writes to System.err. */
    static <T> Captured<T> captureStderr(Supplier<T> action) {
        PrintStream old = System.err;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        T value;
        try {
            value = action.get();
        } finally {
            System.setErr(old);
        }
        String text = bytes.toString(StandardCharsets.UTF_8);
        old.print(text);
        return new Captured<>(value, text);
    }

    record Captured<T>(T value, String stderr) {
        long lines(String containing) {
            return stderr.lines().filter(l -> l.contains(containing)).count();
        }
    }

    /**
     * The file offsets in {@code segment} where its records end, {@code [0]} being the end of the header: record
     * sizes depend on where the writer closed its batches (a batch-end record carries the commit mark), so tests
     * read them back instead of computing them.
     */
    static long[] recordEnds(Path segment) throws IOException {
        List<Long> ends = new ArrayList<>();
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(segment)) {
            LogFormat.Header header = TxnLog.readHeader(ch);
            RecordScanner scanner = new RecordScanner(ch, header, header.bytes(), ch.size(), header.prevZxid());
            ends.add((long) header.bytes());
            while (scanner.next() == RecordScanner.Status.RECORD) {
                ends.add(scanner.position());
            }
        }
        return ends.stream().mapToLong(Long::longValue).toArray();
    }

    static Path lastSegment(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().startsWith("log."))
                    .max(Comparator.comparing(p -> p.getFileName().toString())).orElseThrow();
        }
    }

    static void deleteRecursively(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new StorageException("cleanup failed: " + e, e);
        }
    }
}
