package dev.zkr.server.round;

import dev.zkr.tree.ApplyResult;
import dev.zkr.tree.DataTree;
import dev.zkr.tree.Replacement;
import dev.zkr.tree.Txn;
import dev.zkr.tree.TxnHeader;
import dev.zkr.tree.WatchDelivery;
import dev.zkr.tree.WatchTable;
import dev.zkr.wire.Message;

import java.util.List;

/**
 * The Apply stage (inside a round): applies a committed txn to the tree, releases its pending changes, queues the
 * watch events it fired to their sessions' connections — before the caller queues any reply, so a client sees
 * the event before a response that reflects the change — and registers or forgets the session of a
 * CreateSession / CloseSession txn, so every server that applies the log holds the same sessions.
 */
final class ApplyStage {

    private final DataTree tree;
    private final PrepStage prep;
    private final WatchTable watches;
    private final SessionGate gate;
    private final dev.zkr.auth.Authorizer authorizer;
    private long applied;

    ApplyStage(DataTree tree, PrepStage prep, WatchTable watches, SessionGate gate) {
        this(tree, prep, watches, gate, dev.zkr.auth.Authorizer.defaults());
    }

    ApplyStage(DataTree tree, PrepStage prep, WatchTable watches, SessionGate gate,
               dev.zkr.auth.Authorizer authorizer) {
        this.authorizer = authorizer;
        this.tree = tree;
        this.prep = prep;
        this.watches = watches;
        this.gate = gate;
    }

    /** Applies one committed txn at {@code now} (the round's time: a new session's first deadline counts from it). */
    ApplyResult apply(TxnHeader header, Txn txn, long now) {
        ApplyResult result = tree.apply(header, txn);
        prep.applied(header.zxid(), header.time());
        applied++;
        if (!result.triggers().isEmpty()) {
            deliver(watches.trigger(result.triggers()));
        }
        if (txn instanceof Txn.CreateSession || txn instanceof Txn.CloseSession) {
            gate.applied(txn, now);
        }
        return result;
    }

    /**
     * The tree switched to a snapshot from the leader ({@link DataTree#replaceWith}): the sessions follow it and the
     * watches on what changed fire, as if the txns in between had been applied.
     */
    void installed(Replacement r, long now) {
        prep.applied(tree.lastZxid(), 0);
        gate.installed(r, now);
        if (!r.triggers().isEmpty()) {
            deliver(watches.trigger(r.triggers()));
        }
    }

    /**
     * Queues watch events to the connections of their sessions (sessions without connection miss them). An event
     * whose node the connection may not READ is dropped (its one-shot watch is spent), as ZooKeeper 3.9 drops it.
     */
    void deliver(List<WatchDelivery> deliveries) {
        dev.zkr.client.WatchedEvent sharedFor = null; // the event last sent with data, read from the tree once:
        Message shared = null;                        // the next sessions of the same event get the same message
        for (WatchDelivery d : deliveries) {
            Connection c = gate.connectionOf(d.sessionId());
            if (c != null && !c.closed && (d.acl() == null
                    || authorizer.allowed(d.acl(), dev.zkr.client.Perms.READ, c.authIds))) {
                if (!d.withData()) {
                    c.send(new Message.WatchEvent(d.event().type(), d.event().path(), d.event().zxid()));
                } else {
                    if (!d.event().equals(sharedFor)) {
                        sharedFor = d.event();
                        shared = withData(d);
                    }
                    c.send(shared);
                }
            }
        }
    }

    /**
     * The message of a delivery whose watch asked for data: with the node's data and Stat as the tree holds them now
     * (right after the txn that fired it) when the node is there; the root and ZooKeeper's system nodes, whose Stats
     * the server shows adjusted, go without (the client reads them).
     */
    private Message withData(WatchDelivery d) {
        String path = d.event().path();
        if (!"/".equals(path) && !dev.zkr.tree.SystemNodes.isSystem(path)) {
            dev.zkr.client.NodeData now = tree.getData(path);
            if (now != null) {
                return new Message.WatchEventWithData(d.event().type(), path, d.event().zxid(), now.data(),
                        now.stat());
            }
        }
        return new Message.WatchEvent(d.event().type(), path, d.event().zxid());
    }

    /** Number of txns applied since start. */
    long appliedCount() {
        return applied;
    }
}
