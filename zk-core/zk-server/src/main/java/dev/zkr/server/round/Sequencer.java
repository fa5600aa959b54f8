package dev.zkr.server.round;

import dev.zkr.tree.Request;
import dev.zkr.wire.Message;

/**
 * What the parts of the round need of the pipeline to put a write in order (inside a round): turn a request into a
 * sequenced item (its txn validated and given the next zxid), and put an item into the write order. {@link Pipeline}
 * is the one implementation; {@link ClientRequests}, {@link LeaderSide}, {@link HeldHandshakes}, the
 * {@link SessionGate} and {@link Housekeeping} sequence through it. A follower does not sequence: its
 * {@link FollowerSide} forwards writes to the leader.
 */
interface Sequencer {

    /** Prepares a request of the given kind; a validation failure yields a txn-less item carrying the failure. */
    Pending prepare(Pending.Kind kind, Connection c, Message.Request r, Request request, long sessionId);

    /** Puts an item into the write order (and its txn into the log). */
    void sequence(Pending p);

    /**
     * The time a txn prepared now would carry (the wall clock, never below the newest txn time): what TTL expiry is
     * judged by, as nodes' mtimes are txn times. Not the round's monotonic time.
     */
    long txnTime();
}
