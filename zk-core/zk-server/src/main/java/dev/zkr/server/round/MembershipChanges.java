package dev.zkr.server.round;

import dev.zkr.tree.Request;
import dev.zkr.tree.Txn;
import dev.zkr.tree.TxnHeader;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * Membership changes on this server (docs/membership.md). On the leader: a change asked for is checked by the
 * replication as the one change allowed now, sequenced as its record ({@link Txn.Membership}) and answered with the
 * record's zxid once applied; a learner is promoted as soon as it caught up (every leader does this, so a promotion
 * survives a change of leader). On every member: waiters for a membership (a predicate on the applied records) are
 * answered when a record that satisfies it is applied. Round state.
 */
final class MembershipChanges {

    private final Replication replication;
    /** Leader: the changes it sequenced, by record zxid, answered when applied. */
    private final Map<Long, CompletableFuture<Long>> sequenced = new HashMap<>();
    private final List<Waiter> waiters = new ArrayList<>();
    /** The membership applied last: the tree's, or null while the ensemble never changed shape. */
    private Txn.Membership applied;

    private record Waiter(Predicate<Txn.Membership> wanted, CompletableFuture<Txn.Membership> done) {
    }

    MembershipChanges(Replication replication, Txn.Membership applied) {
        this.replication = replication;
        this.applied = applied;
    }

    /** Sequences {@code change} if this server leads in service and the change is allowed now; else fails it. */
    void ask(dev.zkr.client.MembershipChange change, Sequencer sequencer, CompletableFuture<Long> done) {
        if (!replication.inService()) {
            done.completeExceptionally(new IllegalStateException("not the leader in service: "
                    + replication.role()));
            return;
        }
        Txn.Membership next;
        try {
            next = replication.membershipAfter(change);
        } catch (RuntimeException e) { // ZkException (refused as a client is refused), or not the leader
            done.completeExceptionally(e);
            return;
        }
        long zxid = sequence(next, sequencer);
        if (zxid < 0) {
            done.completeExceptionally(new IllegalStateException("the membership record did not prepare"));
        } else {
            sequenced.put(zxid, done);
        }
    }

    /** Leader, on its housekeeping tick: promotes a learner that caught up, if one did and no change is pending. */
    void promoteCaughtUp(Sequencer sequencer) {
        Txn.Membership next = replication.promotionDue();
        if (next != null) {
            sequence(next, sequencer);
        }
    }

    private long sequence(Txn.Membership next, Sequencer sequencer) {
        Pending p = sequencer.prepare(Pending.Kind.INTERNAL, null, null, new Request.ChangeMembership(next), 0);
        if (p.txn == null) {
            return -1;
        }
        sequencer.sequence(p);
        return p.header.zxid();
    }

    /** A txn was applied: a membership record answers the change that made it and the waiters it satisfies. */
    void applied(TxnHeader header, Txn txn) {
        if (!(txn instanceof Txn.Membership m)) {
            return;
        }
        applied = m;
        CompletableFuture<Long> done = sequenced.remove(header.zxid());
        if (done != null) {
            done.complete(header.zxid());
        }
        answerWaiters();
    }

    /** A snapshot from the leader was installed: its membership is the applied one. */
    void installed(Txn.Membership m) {
        if (m != null) {
            applied = m;
            answerWaiters();
        }
    }

    /**
     * Answers {@code done} with the applied membership once it satisfies {@code wanted} (at once if it does now);
     * {@code configured} stands for it while the ensemble never changed shape.
     */
    void await(Predicate<Txn.Membership> wanted, Txn.Membership configured, CompletableFuture<Txn.Membership> done) {
        Txn.Membership now = applied != null ? applied : configured;
        if (now != null && wanted.test(now)) {
            done.complete(now);
        } else {
            waiters.add(new Waiter(wanted, done));
        }
    }

    /** The membership applied last, or null while the ensemble never changed shape. */
    Txn.Membership applied() {
        return applied;
    }

    /**
     * This server stopped leading: the changes it sequenced may or may not commit (the next leader decides), so
     * their callers are told so; they read the membership to learn the outcome.
     */
    void reset() {
        for (Map.Entry<Long, CompletableFuture<Long>> e : sequenced.entrySet()) {
            e.getValue().completeExceptionally(new IllegalStateException("this server stopped leading before the "
                    + "membership change at " + dev.zkr.consensus.Zxid.str(e.getKey()) + " was applied: it may or "
                    + "may not commit; read the membership"));
        }
        sequenced.clear();
    }

    private void answerWaiters() {
        for (Iterator<Waiter> it = waiters.iterator(); it.hasNext(); ) {
            Waiter w = it.next();
            if (w.done().isDone()) {
                it.remove();
            } else if (w.wanted().test(applied)) {
                w.done().complete(applied);
                it.remove();
            }
        }
    }
}
