package dev.zkr.server.round;

import dev.zkr.server.ServerConfig;
import dev.zkr.storage.Snapshotter;
import dev.zkr.tree.DataTree;
import dev.zkr.tree.Request;
import dev.zkr.tree.Txn;
import dev.zkr.tree.TxnHeader;

import java.util.HashSet;
import java.util.Set;

/**
 * Periodic work of the rounds (run by an in-service leader, when due): session expiry on every tick, container and
 * TTL cleanup (empty containers and expired TTL nodes become delete txns, every {@code containerCheckInterval}), the
 * promotion of a learner that caught up ({@link MembershipChanges}), and telling the snapshotter how much was applied.
 */
final class Housekeeping {

    private final ServerConfig config;
    private final DataTree tree;
    private final SessionGate gate;
    private final Snapshotter snapshotter;
    private final Set<String> containerDeletes = new HashSet<>();
    private long nextContainerCheck;
    /** Membership changes and their waiters, or null for a server whose membership never changes (the simulator). */
    private final MembershipChanges memberships;

    Housekeeping(ServerConfig config, DataTree tree, SessionGate gate, Snapshotter snapshotter) {
        this(config, tree, gate, snapshotter, null);
    }

    Housekeeping(ServerConfig config, DataTree tree, SessionGate gate, Snapshotter snapshotter,
                 MembershipChanges memberships) {
        this.config = config;
        this.tree = tree;
        this.gate = gate;
        this.snapshotter = snapshotter;
        this.memberships = memberships;
    }

    /** Membership changes and their waiters, or null. */
    MembershipChanges memberships() {
        return memberships;
    }

    /** How often {@link #tick} runs: a fraction of the tick time, so expiry is prompt. */
    long tickIntervalMs() {
        return Math.max(10, Math.min(config.tickTimeMs() / 4, 250));
    }

    void tick(long now, Sequencer sequencer) {
        gate.expireDue(now, sequencer);
        if (now >= nextContainerCheck) {
            nextContainerCheck = now + config.containerCheckInterval().toMillis();
            for (String path : tree.containersToDelete()) {
                cleanUp(new Request.DeleteContainer(path), sequencer);
            }
            for (DataTree.ExpiredTtl e : tree.expiredTtlNodes(sequencer.txnTime())) {
                cleanUp(new Request.DeleteContainer(e.path(), e.version()), sequencer);
            }
        }
        if (memberships != null) {
            memberships.promoteCaughtUp(sequencer);
        }
    }

    /** Sequences one cleanup delete unless one of the same node is still in flight (or it no longer prepares). */
    private void cleanUp(Request.DeleteContainer delete, Sequencer sequencer) {
        if (containerDeletes.contains(delete.path())) {
            return;
        }
        Pending p = sequencer.prepare(Pending.Kind.INTERNAL, null, null, delete, 0);
        if (p.txn != null) {
            containerDeletes.add(delete.path());
            sequencer.sequence(p);
        }
    }

    /** This server stopped leading: the container and TTL deletes it sequenced may never be applied; retry later. */
    void reset() {
        containerDeletes.clear();
        if (memberships != null) {
            memberships.reset();
        }
    }

    /**
     * A txn was applied (and its item, if any, answered): a container delete is no longer in flight, and every txn
     * counts towards the next snapshot.
     */
    void applied(TxnHeader header, Txn txn) {
        if (header.sessionId() == 0 && txn instanceof Txn.DeleteNode d) {
            containerDeletes.remove(d.path());
        }
        if (snapshotter != null) {
            snapshotter.afterApply(header.zxid(), 1, 0);
        }
        if (memberships != null) {
            memberships.applied(header, txn);
        }
    }
}
