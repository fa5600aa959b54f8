package dev.zkr.server;

import dev.zkr.tree.Txn;
import dev.zkr.tree.TxnCodec;
import dev.zkr.tree.TxnHeader;

import java.util.function.Consumer;

/** The quorum of a standalone server without a replica (the fast path): locally durable means committed. */
final class QuorumOfOne implements Quorum {

    private final LogStage logStage;
    private long committed;

    QuorumOfOne(LogStage logStage, long lastZxid) {
        this.logStage = logStage;
        this.committed = lastZxid;
    }

    @Override
    public void append(TxnHeader header, Txn txn) {
        logStage.append(header, txn);
    }

    @Override
    public void durable(long zxid) {
        committed = Math.max(committed, zxid);
    }

    @Override
    public long drive(Consumer<TxnCodec.Entry> toApply) {
        return committed;
    }

    @Override
    public boolean inService() {
        return true;
    }
}
