package dev.zkr.server.round;

import dev.zkr.storage.LogRecord;
import dev.zkr.storage.LogStore;
import dev.zkr.storage.StorageException;
import dev.zkr.storage.TxnLog;
import dev.zkr.tree.Txn;
import dev.zkr.tree.TxnCodec;
import dev.zkr.tree.TxnHeader;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * Appends prepared txns to the group-commit log. A round encodes every txn it sequences or receives, then
 * {@link #endRound()} hands them to the log in one piece; the log's writer tells {@link Core} the last zxid of each
 * fsync straight from its own thread (no future per record or per round, no extra thread in between).
 */
public final class LogStage {

    private final LogStore log;
    private List<LogRecord> round = new ArrayList<>();

    /** A stage over the server's log: a {@link TxnLog}, or the simulator's in-memory log. */
    public LogStage(LogStore log) {
        this.log = log;
    }

    /** Tells {@code durable} the last zxid of each fsync and {@code onFailure} a failed write (set once). */
    void listen(LongConsumer durable, Consumer<Throwable> onFailure) {
        log.listen(new TxnLog.DurabilityListener() {
            @Override
            public void durable(long zxid) {
                durable.accept(zxid);
            }

            @Override
            public void failed(StorageException e) {
                onFailure.accept(e);
            }
        });
    }

    /** Queues one txn for this round (inside a round). */
    public void append(TxnHeader header, Txn txn) {
        round.add(new LogRecord(header.zxid(), TxnCodec.encode(header, txn)));
    }

    /** Queues one already encoded record for this round (inside a round). */
    public void append(long zxid, byte[] payload) {
        round.add(new LogRecord(zxid, payload));
    }

    /** True when the log's writer has nothing queued (it may as well complete a round itself). */
    boolean writerIdle() {
        return !log.hasQueued();
    }

    /** Hands the round's txns to the log (at the end of a round, or before a truncation or an install). */
    public void endRound() {
        if (round.isEmpty()) {
            return;
        }
        List<LogRecord> records = round;
        round = new ArrayList<>(Math.max(16, records.size()));
        log.appendAll(records);
    }
}
