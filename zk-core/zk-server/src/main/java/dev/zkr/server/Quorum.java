package dev.zkr.server;

import dev.zkr.tree.Txn;
import dev.zkr.tree.TxnCodec;
import dev.zkr.tree.TxnHeader;

import java.util.function.Consumer;

/**
 * Decides when a logged txn is committed; chosen when the server is assembled ({@link Assembler}). Every method is
 * called inside {@link Core}'s rounds (one thread at a time). A standalone server runs a single-member replica
 * ({@link ReplicationStage}: it elects itself, logs its {@code EPOCH} record and commits on local durability) or,
 * as the fast path, {@link QuorumOfOne} (locally durable is committed).
 */
interface Quorum {

    /** Logs a txn the core sequenced (its zxid follows the previous one). */
    void append(TxnHeader header, Txn txn);

    /** The local log reported every record up to and including {@code zxid} durable. */
    void durable(long zxid);

    /**
     * Does this round's consensus work: hands records to the log stage, gives {@code toApply} the records the core
     * did not sequence itself (in zxid order, before any later record of the core's), and returns the commit point:
     * every record up to it may be applied.
     */
    long drive(Consumer<TxnCodec.Entry> toApply);

    /** True while this server may sequence writes (the core holds timers that write until then). */
    boolean inService();
}
