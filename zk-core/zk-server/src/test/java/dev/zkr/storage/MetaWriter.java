package dev.zkr.storage;

import java.io.PrintStream;
import java.nio.file.Path;

/**
 * Child process of {@link ConsensusMetaTest}: stores consensus.meta in {@code args[0]} over and over with
 * acceptedEpoch 1, 2, 3, ... (votedFor = epoch * 7, ensembleId 99, serverId 3) and prints each epoch once its
 * store returned, until killed.
 */
public final class MetaWriter {

    private MetaWriter() {
    }

    public static void main(String[] args) {
        Path dir = Path.of(args[0]);
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true);
        for (long epoch = 1; ; epoch++) {
            new ConsensusMeta(epoch, epoch * 7, 99, 3).store(dir);
            out.println(epoch);
        }
    }
}
