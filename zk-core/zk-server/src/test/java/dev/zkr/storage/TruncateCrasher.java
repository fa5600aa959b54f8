package dev.zkr.storage;

import java.util.function.Consumer;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Child process of {@link TruncateCrashTest}: opens the log in {@code args[0]} and truncates it after
 * {@code args[1]}, printing each step of the truncation as it is reached; at step number {@code args[2]} it prints
 * {@code STOPPED} and waits to be killed. Prints {@code DONE} if the truncation finished first.
 */
public final class TruncateCrasher {

    private TruncateCrasher() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        long zxid = Long.parseLong(args[1]);
        int stopAt = Integer.parseInt(args[2]);
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true);
        AtomicInteger steps = new AtomicInteger();
        Consumer<String> hook = step -> {
            out.println(step);
            if (steps.incrementAndGet() == stopAt) {
                out.println("STOPPED");
                while (true) {
                    try {
                        Thread.sleep(Long.MAX_VALUE); // until SIGKILL
                    } catch (InterruptedException e) {
                        // keep waiting
                    }
                }
            }
        };
        TxnLog log = TxnLog.open(dir, TruncateTest.SMALL, hook);
        log.truncateAfter(zxid);
        out.println("DONE");
        System.exit(0);
    }
}
