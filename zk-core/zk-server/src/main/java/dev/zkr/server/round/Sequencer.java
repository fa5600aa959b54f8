package dev.zkr.server.round;

import dev.zkr.tree.Request;
import dev.zkr.wire.Message;

/**
 * What the session gate and housekeeping need of the pipeline (round thread): turn a request into a sequenced item
 * (its txn validated and given the next zxid), and put an item into the write order. {@link Core} is the one
 * implementation; a follower will sequence by forwarding instead.
 */
interface Sequencer {

    /** Prepares a request of the given kind; a validation failure yields a txn-less item carrying the failure. */
    Pending prepare(Pending.Kind kind, Connection c, Message.Request r, Request request, long sessionId);

    /** Puts an item into the write order (and its txn into the log). */
    void sequence(Pending p);
}
