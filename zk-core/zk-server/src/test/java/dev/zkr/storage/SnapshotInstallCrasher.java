package dev.zkr.storage;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Child process of {@link SnapshotInstallCrashTest}: on the data directories of {@link SnapTransferFixture} under
 * {@code args[0]}, runs a whole SNAP install (P3 a truncation, transfer, install, log restart), printing each step
 * of the truncation, the receiver and the log restart as it is reached; at step number {@code args[1]} it prints
 * {@code STOPPED} and waits to be killed. Prints {@code DONE} if the install finished first.
 */
public final class SnapshotInstallCrasher {

    private SnapshotInstallCrasher() {
    }

    public static void main(String[] args) {
        Path root = Path.of(args[0]);
        int stopAt = Integer.parseInt(args[1]);
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
        TxnLog log = TxnLog.open(SnapTransferFixture.followerLog(root), SnapTransferFixture.SMALL, hook);
        SnapTransferFixture.snap(SnapshotStore.open(SnapTransferFixture.leaderSnapshots(root)),
                SnapshotStore.open(SnapTransferFixture.followerSnapshots(root), hook), log);
        out.println("DONE");
        System.exit(0);
    }
}
