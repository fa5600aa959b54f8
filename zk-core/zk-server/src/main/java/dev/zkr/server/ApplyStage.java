package dev.zkr.server;

import dev.zkr.tree.ApplyResult;
import dev.zkr.tree.DataTree;
import dev.zkr.tree.WatchDelivery;
import dev.zkr.tree.WatchTable;
import dev.zkr.wire.Message;

import java.util.List;
import java.util.function.LongFunction;

/**
 * The Apply stage (core thread): applies a committed txn to the tree, releases its pending changes, and queues the
 * watch events it fired to their sessions' connections — before the caller queues any reply, so a client sees
 * the event before a response that reflects the change.
 */
final class ApplyStage {

    private final DataTree tree;
    private final PrepStage prep;
    private final WatchTable watches;
    private final LongFunction<Connection> connectionOf;
    private long applied;

    ApplyStage(DataTree tree, PrepStage prep, WatchTable watches, LongFunction<Connection> connectionOf) {
        this.tree = tree;
        this.prep = prep;
        this.watches = watches;
        this.connectionOf = connectionOf;
    }

    ApplyResult apply(Pending p) {
        ApplyResult result = tree.apply(p.header, p.txn);
        prep.applied(p.zxid());
        applied++;
        if (!result.triggers().isEmpty()) {
            deliver(watches.trigger(result.triggers()));
        }
        return result;
    }

    /** Queues watch events to the connections of their sessions (sessions without connection miss them). */
    void deliver(List<WatchDelivery> deliveries) {
        for (WatchDelivery d : deliveries) {
            Connection c = connectionOf.apply(d.sessionId());
            if (c != null && !c.closed) {
                c.send(new Message.WatchEvent(d.event().type(), d.event().path(), d.event().zxid()));
            }
        }
    }

    /** Number of txns applied since start. */
    long appliedCount() {
        return applied;
    }
}
