package dev.zkr.server;

import java.util.function.LongConsumer;

/** The quorum of a standalone server: locally durable means committed. */
final class QuorumOfOne implements Quorum {

    private volatile LongConsumer committed = zxid -> {
        throw new IllegalStateException("no commit target: the quorum is not wired to a core");
    };

    @Override
    public void commitsTo(LongConsumer committed) {
        this.committed = committed;
    }

    @Override
    public void logged(long zxid) {
        committed.accept(zxid);
    }
}
