package dev.zkr.server;

import java.util.function.LongConsumer;

/**
 * Decides when a logged txn is committed. It is chosen when the server is assembled ({@link Assembler}): standalone
 * (an ensemble of one) commits as soon as the txn is durable locally ({@link QuorumOfOne}); the consensus core will
 * take this place for replicated ensembles.
 */
interface Quorum {

    /** Where commit notices go ("every txn up to and including this zxid is committed"); set once, by {@link Core}. */
    void commitsTo(LongConsumer committed);

    /** Every txn up to and including {@code zxid} is durable in the local log (the log's writer thread). */
    void logged(long zxid);
}
