package dev.zkr.server;

import dev.zkr.storage.TxnLog;
import dev.zkr.tree.Txn;
import dev.zkr.tree.TxnCodec;
import dev.zkr.tree.TxnHeader;

import java.util.function.Consumer;

/**
 * Appends prepared txns to the group-commit log. The core thread appends every txn of one round, then calls
 * {@link #endRound()}, which asks for one durability callback covering the round; when the fsync is done the
 * {@link Quorum} learns the round's last zxid.
 */
final class LogStage {

    private final TxnLog log;
    private final Quorum quorum;
    private final Consumer<Throwable> onFailure;
    private long lastAppended;
    private long lastSynced;

    LogStage(TxnLog log, Quorum quorum, Consumer<Throwable> onFailure) {
        this.log = log;
        this.quorum = quorum;
        this.onFailure = onFailure;
    }

    /** Queues one txn (core thread). */
    void append(TxnHeader header, Txn txn) {
        log.append(header.zxid(), TxnCodec.encode(header, txn));
        lastAppended = header.zxid();
    }

    /** Requests the durability callback for everything appended since the last round (core thread). */
    void endRound() {
        if (lastAppended == lastSynced) {
            return;
        }
        long zxid = lastAppended;
        lastSynced = zxid;
        log.sync().whenComplete((v, e) -> {
            if (e != null) {
                onFailure.accept(e);
            } else {
                quorum.logged(zxid);
            }
        });
    }
}
