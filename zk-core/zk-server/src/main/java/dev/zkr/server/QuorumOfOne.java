package dev.zkr.server;

import java.util.function.LongConsumer;

/** The quorum of a standalone server: locally durable means committed. */
final class QuorumOfOne implements Quorum {

    private final LongConsumer committed;

    QuorumOfOne(LongConsumer committed) {
        this.committed = committed;
    }

    @Override
    public void logged(long zxid) {
        committed.accept(zxid);
    }
}
