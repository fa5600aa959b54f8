package dev.zkr.server;

/**
 * Decides when a logged txn is committed. Standalone (an ensemble of one) commits as soon as the txn is durable
 * locally; the consensus core will replace this stage for replicated ensembles.
 */
interface Quorum {

    /** Every txn up to and including {@code zxid} is durable in the local log. */
    void logged(long zxid);
}
