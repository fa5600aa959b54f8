package dev.zkr.server.port;

import dev.zkr.wire.Message;

/**
 * Where the client port reports the requests it answered: the server's metrics ({@code admin.ServerMetrics}), given
 * only to a server that keeps them (one with an admin endpoint). Called on the event loops, so it must be cheap and
 * lock-free.
 */
public interface RequestMetrics {

    /** The index of a request's operation, as {@link #replied} takes it (a class lookup). */
    int op(Message.Request r);

    /** A request of operation {@code op} was answered (its reply written) {@code nanos} after it was read. */
    void replied(int op, long nanos);
}
