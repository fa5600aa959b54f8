package dev.zkr.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zkr.consensus.ReplicaMessage.Ack;
import dev.zkr.consensus.ReplicaMessage.Commit;
import dev.zkr.consensus.ReplicaMessage.Heartbeat;
import dev.zkr.consensus.ReplicaMessage.Propose;
import dev.zkr.consensus.ReplicaMessage.SyncStart;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * ZooKeeper's recovery bugs and the classic failover shapes as scripted schedules (docs/testing.md, Regression
 * scenarios). Every run also checks the simulator's invariants after each event. Each scenario is a static method
 * taking the mutations, so {@link MutationKillTest} can show that it fails with its bug re-introduced.
 */
class RegressionScenariosTest {
    static final long LONG = 6000;

    /** A scripted run: a {@link Sim} without random faults or clients, plus helpers. */
    static final class Script {
        final Sim sim;

        Script(int nodes, Mutations m) {
            sim = new Sim(42, Sim.Options.scripted(nodes), m);
        }

        void until(BooleanSupplier cond, String what) {
            sim.runUntil(cond, LONG, what);
        }

        /** Node {@code id} campaigns now and becomes the in-service leader. */
        void elect(int id) {
            sim.campaign(id);
            until(() -> sim.leader() == id, "n" + id + " leads");
        }

        void leaderIs(int id) {
            until(() -> sim.leader() == id, "n" + id + " leads in service");
        }

        long write(String payload) {
            until(() -> sim.leader() >= 0, "an in-service leader");
            return sim.propose(sim.leader(), payload);
        }

        long commit(String payload) {
            long z = write(payload);
            until(() -> sim.isCommitted(payload), "commit " + payload);
            return z;
        }

        void appliedEverywhere(long zxid) {
            until(() -> {
                for (int i = 0; i < sim.nodes.length; i++) {
                    if (sim.nodes[i].up && sim.applied(i) < zxid) {
                        return false;
                    }
                }
                return true;
            }, "every live replica applies " + Zxid.str(zxid));
        }

        Replica r(int id) {
            return sim.replica(id);
        }

        boolean isLeader(int id) {
            RoleInfo role = sim.role(id);
            return role != null && role.role() == Role.LEADER;
        }

        boolean holdsEpoch(int id, long epoch) {
            return sim.log(id).stream().anyMatch(e -> Zxid.epoch(e.zxid()) == epoch);
        }
    }

    // ------------------------------------------------------------------------------------------------ scenarios

    /**
     * ZOOKEEPER-3911: followers re-synced by DIFF must not ack (and so the leader must not commit) before their
     * fsync; after all crash, /zk is absent and was never committed.
     */
    static void zk3911(Mutations m) {
        Script s = new Script(3, m);
        s.elect(2);
        s.commit("a");
        s.sim.crash(0);
        s.sim.crash(1);
        long zk = s.write("/zk");
        s.sim.stallDisk(0, true);
        s.sim.stallDisk(1, true);
        s.sim.restart(0);
        s.sim.restart(1);
        s.until(() -> s.r(0).lastAppendedZxid() >= zk && s.r(1).lastAppendedZxid() >= zk, "DIFF of /zk");
        s.sim.run(300);
        assertFalse(s.sim.isCommitted("/zk"), "committed without a durable quorum");
        assertTrue(s.r(2).commitZxid() < zk);
        s.sim.crash(0);
        s.sim.crash(1);
        s.sim.crash(2);
        s.sim.stallDisk(0, false);
        s.sim.stallDisk(1, false);
        s.sim.restart(0);
        s.sim.restart(1);
        s.until(() -> s.sim.leader() >= 0, "a leader among the followers");
        assertFalse(s.sim.holds(0, "/zk") || s.sim.holds(1, "/zk"));
        assertFalse(s.sim.isCommitted("/zk"));
    }

    /** ZOOKEEPER-3911, second half: once the followers' fsyncs complete, /zk is committed and survives. */
    static void zk3911Released(Mutations m) {
        Script s = new Script(3, m);
        s.elect(2);
        s.sim.crash(0);
        s.sim.crash(1);
        long zk = s.write("/zk");
        s.sim.restart(0);
        s.sim.restart(1);
        s.until(() -> s.sim.isCommitted("/zk"), "/zk committed");
        s.appliedEverywhere(zk);
        for (int i = 0; i < 3; i++) {
            s.sim.crash(i);
        }
        s.sim.restart(0);
        s.sim.restart(1);
        s.until(() -> s.sim.leader() >= 0, "a leader among the followers");
        assertTrue(s.sim.holds(0, "/zk") && s.sim.holds(1, "/zk"));
    }

    /**
     * ZOOKEEPER-4646: a follower whose fsync never completes never acks the new epoch's EPOCH record, so the new
     * leader cannot go in service through it; nothing committed is lost.
     */
    static void zk4646(Mutations m) {
        Script s = new Script(3, m);
        s.elect(2);
        s.sim.crash(0);
        s.commit("t");
        s.sim.crash(2);
        s.sim.stallDisk(0, true);
        s.sim.restart(0);
        s.until(() -> s.isLeader(1), "n1 leads epoch 2");
        long epoch = s.sim.role(1).epoch();
        s.until(() -> s.r(0).lastAppendedZxid() >= Zxid.of(epoch, 0), "n0 receives the EPOCH record");
        s.sim.run(400);
        assertTrue(s.r(0).durableZxid() < Zxid.of(epoch, 0));
        assertFalse(s.sim.role(1).inService(), "in service without a durable quorum for its EPOCH record");
        s.sim.crash(0);
        s.sim.crash(1);
        s.sim.stallDisk(0, false);
        s.sim.restart(0);
        s.sim.restart(2);
        s.leaderIs(2);
        s.sim.restart(1);
        long last = s.commit("after");
        s.appliedEverywhere(last);
        for (int i = 0; i < 3; i++) {
            assertTrue(s.sim.holds(i, "t"), "n" + i + " lost t");
        }
    }

    /**
     * ZOOKEEPER-4643: S2 (n0) voted in epoch 2 and received t by DIFF but crashed before t was durable; it must not
     * beat S1 (n1), which holds the committed t.
     */
    static void zk4643(Mutations m) {
        Script s = new Script(3, m);
        s.sim.crash(0);
        s.elect(2);
        long t = s.commit("t");
        s.sim.crash(1);
        s.sim.crash(2);
        s.sim.stallDisk(0, true);
        s.sim.restart(0);
        s.sim.restart(2);
        s.sim.campaign(2);
        s.until(() -> s.isLeader(2) && s.r(0).lastAppendedZxid() >= t, "n2 leads epoch 2, n0 got t");
        s.sim.crash(2);
        s.sim.crash(0);
        s.sim.stallDisk(0, false);
        s.sim.restart(0);
        s.sim.restart(1);
        s.sim.campaign(0); // n0 asks first: ranked by its epoch alone (the bug) it would win without t
        s.leaderIs(1);
        s.sim.restart(2);
        long last = s.commit("after");
        s.appliedEverywhere(last);
        for (int i = 0; i < 3; i++) {
            assertTrue(s.sim.holds(i, "t"), "n" + i + " lost t");
        }
    }

    /**
     * ZOOKEEPER-4785: S0 (n0) DIFF-syncs /1 but loses it at a crash; S1 (n1), holding /1 durably, must lead next;
     * /0, /1 and /3 end on all three.
     */
    static void zk4785(Mutations m) {
        Script s = new Script(3, m);
        s.elect(2);
        s.appliedEverywhere(s.commit("/0"));
        s.sim.crash(0);
        long one = s.commit("/1");
        s.sim.crash(1);
        s.sim.stallDisk(0, true);
        s.sim.restart(0);
        s.until(() -> s.r(0).lastAppendedZxid() >= one, "n0 receives /1");
        s.sim.crash(2);
        s.sim.crash(0);
        s.sim.stallDisk(0, false);
        s.sim.restart(1);
        s.sim.restart(0);
        s.leaderIs(1);
        s.commit("/3");
        s.sim.restart(2);
        long last = s.commit("/4");
        s.appliedEverywhere(last);
        for (int i = 0; i < 3; i++) {
            for (String p : new String[] {"/0", "/1", "/3"}) {
                assertTrue(s.sim.holds(i, p), "n" + i + " lacks " + p);
            }
        }
    }

    /**
     * ZOOKEEPER-4925 (5 servers): S5 (n0) re-joins after A and B; one proposal of its DIFF is lost on the way. The
     * contiguity check refuses the gap and re-syncs: A and B end on S5.
     */
    static void zk4925(Mutations m) {
        Script s = new Script(5, m);
        s.elect(4);
        s.sim.crash(0);
        long a = s.commit("A");
        s.sim.crash(3);
        long b = s.commit("B");
        s.sim.restart(3);
        s.until(() -> s.sim.applied(3) >= b, "S4 (n3) catches up by DIFF");
        s.sim.crash(4);
        s.leaderIs(3);
        boolean[] dropped = {false};
        s.sim.dropFilter = (from, to, msg) -> {
            if (to == 0 && msg instanceof Propose p && p.zxid() == a && !dropped[0]) {
                dropped[0] = true;
                return true;
            }
            return false;
        };
        s.sim.restart(0);
        long last = s.commit("C");
        s.appliedEverywhere(last);
        assertTrue(dropped[0], "the script dropped A on its way to n0");
        assertTrue(s.sim.holds(0, "A") && s.sim.holds(0, "B"));
    }

    /**
     * ZOOKEEPER-3642: a SNAP-synced follower reports the snapshot only once its install is durable; crashes during
     * and after the install recover to a consistent state.
     */
    static void zk3642(Mutations m) {
        Script s = new Script(3, m);
        s.elect(2);
        s.sim.crash(0);
        long x = 0;
        for (int i = 0; i < 5; i++) {
            x = s.commit("x" + i);
        }
        long snap = x;
        s.until(() -> s.sim.applied(2) >= snap, "leader applies x4");
        s.sim.snapshot(2, snap);
        s.sim.stallDisk(0, true);
        s.sim.restart(0);
        s.until(() -> s.r(0).installing == snap, "n0 installs the snapshot");
        s.sim.run(100);
        assertTrue(s.r(0).durableZxid() < snap, "snapshot reported before it is durable");
        s.sim.crash(2); // the leader dies before the follower's EPOCH ack
        s.sim.crash(0); // and the follower inside the install: the disk keeps its old state
        s.sim.stallDisk(0, false);
        s.sim.restart(0);
        s.sim.restart(2);
        s.until(() -> s.sim.leader() >= 0, "a new leader");
        s.until(() -> s.sim.applied(0) >= snap, "n0 reaches the snapshot");
        s.sim.crash(0); // right after the install became durable
        s.sim.restart(0);
        long last = s.commit("after");
        s.appliedEverywhere(last);
    }

    /**
     * ZOOKEEPER-2832: B (n1) logged (2,1) alone; after epochs 3 and 4 the common prefix is (2,0): TRUNC removes
     * (2,1) durably before anything else, and it was never applied.
     */
    static void zk2832(Mutations m) {
        Script s = new Script(3, m);
        s.elect(2);
        s.commit("k0");
        s.appliedEverywhere(s.commit("k1"));
        s.sim.crash(2);
        s.elect(1);
        s.sim.dropFilter = (from, to, msg) -> from == 1 && to == 0 && msg instanceof Propose;
        long b = s.sim.propose(1, "key0=1000");
        s.until(() -> s.r(1).durableZxid() >= b, "B logs (2,1)");
        s.sim.crash(0);
        s.sim.crash(1);
        s.sim.dropFilter = (from, to, msg) -> false;
        s.sim.restart(0);
        s.sim.restart(2);
        s.leaderIs(0);
        s.sim.crash(0);
        s.sim.restart(1);
        s.leaderIs(2);
        long epoch4 = Zxid.of(s.sim.role(2).epoch(), 0);
        s.until(() -> s.sim.applied(1) >= epoch4, "B syncs with C");
        assertFalse(s.sim.holds(1, "key0=1000"));
        assertFalse(s.sim.isCommitted("key0=1000"));
        assertTrue(s.sim.stats.trunc > 0);
        s.sim.restart(0);
        s.appliedEverywhere(s.commit("after"));
    }

    /**
     * ZOOKEEPER-2832 through SNAP: n1 holds a stale record of epoch 2 (it led epoch 2 alone) but not the leader's
     * x2 of epoch 1, which the leader of epoch 3 committed, snapshotted and purged its log to. n1 is synced by SNAP
     * at x2 and must cut its stale epoch-2 tail, which lies above the snapshot, before installing (P3 a).
     */
    static void zk2832Snap(Mutations m) {
        Script s = new Script(3, m);
        s.elect(2);
        s.appliedEverywhere(s.commit("x1"));
        s.sim.dropFilter = (from, to, msg) -> from == 2 && msg instanceof Propose;
        long x2 = s.write("x2");
        s.until(() -> s.r(2).durableZxid() >= x2, "n2 logs x2 alone");
        s.sim.crash(2);
        s.sim.dropFilter = (from, to, msg) -> from == 1 && to == 0 && !(msg instanceof ReplicaMessage.VoteAck)
                && !(msg instanceof ReplicaMessage.PreVote) && !(msg instanceof ReplicaMessage.Vote);
        s.sim.campaign(1);
        s.until(() -> s.isLeader(1), "n1 leads epoch 2");
        long e2 = Zxid.of(s.sim.role(1).epoch(), 0);
        s.until(() -> s.r(1).durableZxid() >= e2, "n1 logs its EPOCH record alone");
        s.sim.crash(1);
        s.sim.dropFilter = (from, to, msg) -> false;
        s.sim.restart(2);
        s.leaderIs(2);
        s.until(() -> s.sim.isCommitted("x2"), "x2 committed by the EPOCH record of n2's new epoch");
        s.sim.snapshot(2, x2);
        long snapsBefore = s.sim.stats.snap;
        s.sim.restart(1);
        long last = s.commit("after");
        s.appliedEverywhere(last);
        assertTrue(s.sim.stats.snap > snapsBefore, "n1 was synced by SNAP");
        assertFalse(s.holdsEpoch(1, Zxid.epoch(e2)), "n1 kept its stale epoch-2 record");
    }

    /**
     * ZOOKEEPER-1675 (5 servers): the majority elects a new leader and commits w while the old leader, cut off with
     * one follower, still believes it leads: a ReadIndex there must never answer (it cannot gather a quorum).
     */
    static void zk1675(Mutations m) {
        Script s = new Script(5, m);
        s.elect(4);
        s.appliedEverywhere(s.commit("v0"));
        s.sim.partition(3, 4);
        for (int i = 0; i < 3; i++) {
            s.sim.signalPeerDown(i, 4);
        }
        s.leaderIs(2);
        long w = s.commit("w");
        assertTrue(s.sim.role(4).role() == Role.LEADER && s.sim.role(4).inService(), "old leader still believes");
        long stale = s.sim.readIndex(4);
        long fresh = s.sim.readIndex(2);
        s.sim.run(400);
        ReadState st = s.sim.readAnswers.get(stale);
        assertNotNull(st, "the deposed leader answered nothing");
        assertTrue(st.refused(), "the deposed leader gave a read point");
        assertTrue(s.sim.readAnswers.get(fresh).readZxid() >= w);
        s.sim.heal();
        s.appliedEverywhere(s.commit("after"));
    }

    /**
     * ZOOKEEPER-4685: a re-syncing follower's first ack covers a live proposal beyond the sync stream (its fsync
     * took both); acks are cumulative, so the leader keeps leading: exactly one election.
     */
    static void zk4685(Mutations m) {
        Script s = new Script(3, m);
        s.elect(2);
        s.commit("a");
        s.sim.crash(0);
        s.commit("b");
        s.sim.stallDisk(0, true);
        s.sim.restart(0);
        long synced = s.r(2).lastAppendedZxid();
        s.until(() -> s.r(0).lastAppendedZxid() >= synced, "n0 synced");
        s.write("c");
        long d = s.write("d");
        s.until(() -> s.r(0).lastAppendedZxid() >= d, "n0 appends live proposals");
        s.sim.stallDisk(0, false);
        s.sim.run(500);
        assertEquals(1, s.sim.stats.elections, "needless re-election");
        assertEquals(2, s.sim.leader());
        s.appliedEverywhere(s.commit("e"));
    }

    /**
     * A slow leader disk: followers' disks make the quorum, so a write commits and the leader applies it while its
     * own fsync is stalled (before, the leader capped its commit point by its own durable point: every write waited
     * for the slowest of the leader's fsyncs — zk-chaos slow-fsync, 507 ms write gaps vs ZooKeeper's 44 ms).
     */
    static void slowLeaderDisk(Mutations m) {
        Script s = new Script(3, m);
        long w = leaderAppliesAheadOfItsStalledDisk(s);
        assertTrue(s.r(2).durableZxid() < w, "the leader's own copy of w is not durable yet");
        s.appliedEverywhere(w);
    }

    /** n2 leads; its disk stalls; w commits on n0's and n1's disks and n2 applies it. Returns w. */
    private static long leaderAppliesAheadOfItsStalledDisk(Script s) {
        s.elect(2);
        s.appliedEverywhere(s.commit("a"));
        s.sim.stallDisk(2, true);
        long w = s.commit("w");
        s.until(() -> s.sim.applied(2) >= w, "the leader applies w");
        return w;
    }

    /**
     * The leader of {@link #slowLeaderDisk} loses its quorum while its disk still lags its commit point, and comes
     * back as a follower of a leader whose log starts after a snapshot: it asks for a sync only once its disk reaches
     * its commit point, so the SNAP, which first cuts the log after the durable point, cannot cut a committed record
     * it already applied (asked at once: "truncate after 1.1 below commit 1.2"; simulator seed 841). It then catches
     * up by SNAP.
     */
    static void formerLeaderAheadOfItsDisk(Mutations m) {
        Script s = new Script(3, m);
        long w = leaderAppliesAheadOfItsStalledDisk(s);
        s.sim.isolate(2);
        s.sim.signalPeerDown(0, 2);
        s.sim.signalPeerDown(1, 2);
        s.until(() -> s.sim.leader() == 0 || s.sim.leader() == 1, "a new leader among n0, n1");
        long z = s.commit("z");
        s.sim.snapshot(s.sim.leader(), z); // the new leader's log starts after z: n2 will be synced by SNAP
        long snapsBefore = s.sim.stats.snap;
        s.sim.heal();
        s.until(() -> !s.isLeader(2), "n2 steps down");
        s.sim.run(300);
        assertTrue(s.r(2).commitZxid() > s.r(2).durableZxid(), "n2's disk still lags its commit point");
        s.sim.stallDisk(2, false);
        s.until(() -> s.sim.applied(2) >= z, "n2 catches up");
        assertTrue(s.sim.stats.snap > snapsBefore, "n2 was synced by SNAP");
        assertTrue(s.sim.applied(2) >= w);
    }

    /**
     * ZOOKEEPER-1154 / -2845: a replica restarts with an uncommitted tail the new leader lacks: recovery applies
     * only up to its commit mark (P7) and the sync truncates the tail.
     */
    static void zk1154(Mutations m) {
        Script s = new Script(3, m);
        s.elect(2);
        s.appliedEverywhere(s.commit("x"));
        s.sim.isolate(2);
        long y = s.sim.propose(2, "y");
        s.until(() -> s.r(2).durableZxid() >= y, "old leader logs y");
        s.sim.signalPeerDown(0, 2);
        s.sim.signalPeerDown(1, 2);
        s.leaderIs(1);
        long z = s.commit("z");
        s.sim.crash(2);
        s.sim.heal();
        s.sim.restart(2);
        s.until(() -> s.sim.applied(2) >= z, "n2 catches up");
        assertFalse(s.sim.holds(2, "y"));
        assertFalse(s.sim.isCommitted("y"));
    }

    /**
     * ZOOKEEPER-4394: a late joiner is sent, in this order, its sync ({@code SyncStart} DIFF and the records it
     * lacks, the new epoch's {@code EPOCH} record among them: Zab's NEWLEADER), a live {@code Propose a},
     * {@code Commit a}, {@code Propose b}, and {@code Commit b} only once it holds b. It logs a and b, applies a at
     * its commit and b only at {@code Commit b}, nothing throws, and its one (cumulative) ack of b commits b with the
     * leader while the other follower's ack is held.
     */
    static void zk4394(Mutations m) {
        Script s = new Script(3, m);
        s.elect(2);
        s.appliedEverywhere(s.commit("x"));
        s.sim.crash(0);
        s.sim.crash(2);
        s.sim.restart(2);
        s.until(() -> s.sim.leader() >= 0, "a leader of a new epoch the late joiner has not seen");
        int leader = s.sim.leader();
        int other = 3 - leader; // the follower that is not the late joiner n0
        long y = s.commit("y");
        // hold the leader's messages to n0 from its SyncStart on: the whole sync stream reaches it at once, later
        boolean[] syncing = {false};
        s.sim.holdFilter = (from, to, msg) -> from == leader && to == 0
                && (syncing[0] || (syncing[0] = msg instanceof SyncStart));
        s.sim.restart(0);
        s.until(() -> syncing[0], "the leader starts n0's sync");
        long a = s.commit("a"); // committed by the other two
        s.sim.holdFilter = (from, to, msg) -> from == leader && to == 0
                || from == other && to == leader && msg instanceof Ack;
        long b = s.write("b");
        s.until(() -> s.r(other).durableZxid() >= b, "the other follower logs b (its ack held)");
        assertTrue(s.r(leader).commitZxid() < b, "b is not committed yet");
        // the stream goes out in the order it was sent; a Commit of b waits
        s.sim.holdFilter = (from, to, msg) -> from == other && to == leader && msg instanceof Ack
                || from == leader && to == 0 && msg instanceof Commit c && c.zxid() >= b
                || from == leader && to == 0 && msg instanceof ReplicaMessage.LeaderDurable d && d.zxid() >= b;
        // (the leader's LeaderDurable of b would let n0 count b itself: it waits with the Commit)
        s.sim.releaseHeld((from, to, msg) -> to == 0
                && !(msg instanceof ReplicaMessage.LeaderDurable d && d.zxid() >= b));
        s.until(() -> s.r(0).durableZxid() >= b, "n0 logs a and b");
        s.until(() -> s.r(leader).commitZxid() >= b, "n0's ack of b commits b (the other's ack is held)");
        s.until(() -> s.sim.applied(0) >= a, "n0 applies a at Commit a");
        assertTrue(s.sim.holds(0, "y") && s.sim.holds(0, "a") && s.sim.holds(0, "b"));
        assertTrue(s.sim.applied(0) < b, "n0 applied b before its Commit");
        s.sim.holdFilter = (from, to, msg) -> false;
        s.sim.releaseHeld((from, to, msg) -> true);
        s.appliedEverywhere(b);
        s.appliedEverywhere(s.commit("c"));
        assertTrue(y < a && a < b);
    }

    /**
     * A follower counts the leader's durable point ({@code LeaderDurable}) with its own disk's, never alone: x is
     * durable on the leader only (n0's disk stalls, n1 never gets it); n0 must not apply it until its own disk holds
     * it, and then it is on a quorum.
     */
    static void leaderDurableCountsOnlyWithTheFollowersOwnDisk(Mutations m) {
        Script s = new Script(3, m);
        s.elect(2);
        s.appliedEverywhere(s.commit("a"));
        s.sim.stallDisk(0, true);
        s.sim.dropFilter = (from, to, msg) -> to == 1 && msg instanceof Propose;
        long x = s.write("x");
        s.until(() -> s.r(0).lastAppendedZxid() >= x && s.r(2).durableZxid() >= x,
                "n0 appended x and the leader's disk holds it");
        s.sim.run(200); // the leader's LeaderDurable reaches n0
        assertTrue(s.sim.applied(0) < x, "n0 applied x, durable on the leader alone");
        assertTrue(s.r(2).commitZxid() < x, "the leader committed x on its own disk");
        s.sim.stallDisk(0, false);
        s.sim.dropFilter = (from, to, msg) -> false;
        s.appliedEverywhere(x);
    }

    /** Leader dies after PROPOSE, before COMMIT; the follower holding z wins: z is committed by its EPOCH record. */
    static void leaderDiesBeforeCommitHolderWins(Mutations m) {
        Script s = new Script(3, m);
        s.elect(2);
        s.commit("a");
        s.sim.dropFilter = (from, to, msg) -> to == 0 && msg instanceof Propose;
        s.sim.holdFilter = (from, to, msg) -> from == 1 && to == 2 && msg instanceof Ack;
        long z = s.write("z");
        s.until(() -> s.r(1).durableZxid() >= z, "n1 logs z");
        s.sim.crash(2);
        s.sim.dropHeld();
        s.sim.dropFilter = (from, to, msg) -> false;
        s.sim.holdFilter = (from, to, msg) -> false;
        s.leaderIs(1);
        s.until(() -> s.sim.isCommitted("z"), "z committed through the EPOCH record");
        s.sim.restart(2);
        s.appliedEverywhere(s.commit("b"));
    }

    /** Leader dies after PROPOSE, before COMMIT; a replica without z wins: z is truncated where it was logged. */
    static void leaderDiesBeforeCommitOtherWins(Mutations m) {
        Script s = new Script(3, m);
        s.elect(2);
        s.commit("a");
        s.sim.stallDisk(2, true);
        s.sim.dropFilter = (from, to, msg) -> to == 0 && msg instanceof Propose;
        s.sim.holdFilter = (from, to, msg) -> from == 1 && to == 2 && msg instanceof Ack;
        long z = s.write("z");
        s.until(() -> s.r(1).durableZxid() >= z, "n1 logs z");
        s.sim.crash(2);
        s.sim.crash(1);
        s.sim.dropHeld();
        s.sim.dropFilter = (from, to, msg) -> false;
        s.sim.holdFilter = (from, to, msg) -> false;
        s.sim.stallDisk(2, false);
        s.sim.restart(2);
        s.leaderIs(2);
        long b = s.commit("b");
        s.sim.restart(1);
        s.until(() -> s.sim.applied(1) >= b, "n1 re-syncs");
        assertFalse(s.sim.holds(1, "z"));
        assertFalse(s.sim.isCommitted("z"));
    }

    /** A partitioned old leader accepts proposals but commits none, steps down within T; they are truncated. */
    static void partitionedOldLeader(Mutations m) {
        Script s = new Script(3, m);
        s.elect(2);
        s.appliedEverywhere(s.commit("a"));
        s.sim.isolate(2);
        s.sim.propose(2, "stale1");
        s.sim.propose(2, "stale2");
        s.sim.run(3 * 10 * Sim.TICK);
        assertFalse(s.isLeader(2), "isolated leader did not step down (check-quorum)");
        assertFalse(s.sim.isCommitted("stale1") || s.sim.isCommitted("stale2"));
        s.leaderIs(1);
        long fresh = s.commit("fresh");
        s.sim.heal();
        s.until(() -> s.sim.applied(2) >= fresh, "old leader catches up");
        assertFalse(s.sim.holds(2, "stale1") || s.sim.holds(2, "stale2"));
    }

    /**
     * Two elections in a row: n1 wins epoch 2 and logs (2,0) alone, then dies; n2 wins epoch 3. Delayed epoch-2
     * messages are dropped, (2,0) is truncated on n1's return.
     */
    static void twoElectionsInARow(Mutations m) {
        Script s = new Script(3, m);
        s.elect(2);
        s.appliedEverywhere(s.commit("a"));
        s.sim.crash(2);
        s.sim.holdFilter = (from, to, msg) -> from == 1 && to == 0
                && (msg instanceof Propose || msg instanceof SyncStart || msg instanceof Heartbeat
                        || msg instanceof Commit);
        s.sim.campaign(1);
        s.until(() -> s.isLeader(1), "n1 leads epoch 2");
        long e2 = s.sim.role(1).epoch();
        s.until(() -> s.r(1).durableZxid() >= Zxid.of(e2, 0), "n1 logs (2,0)");
        s.sim.crash(1);
        s.sim.holdFilter = (from, to, msg) -> false;
        s.sim.restart(2);
        s.leaderIs(2);
        assertTrue(s.sim.role(2).epoch() > e2);
        s.sim.releaseHeld(); // epoch-2 messages arrive late at n0
        s.sim.run(200);
        assertFalse(s.holdsEpoch(0, e2));
        s.sim.restart(1);
        long last = s.commit("b");
        s.until(() -> s.sim.applied(1) >= last, "n1 re-syncs");
        assertFalse(s.holdsEpoch(1, e2), "(2,0) survived on n1");
        assertEquals(s.sim.role(2).epoch(), s.sim.role(1).epoch());
    }

    /** A follower's disk fills: it stops (P8); the others keep committing; after restart it catches up. */
    static void followerDiskFull(Mutations m) {
        Script s = new Script(3, m);
        s.elect(2);
        s.appliedEverywhere(s.commit("a"));
        s.sim.nodes[0].diskFull = true;
        s.commit("b");
        long c = s.commit("c");
        assertFalse(s.sim.nodes[0].up, "a follower with a full disk keeps running");
        s.sim.nodes[0].diskFull = false;
        s.sim.restart(0);
        s.appliedEverywhere(c);
    }

    /**
     * A follower crashes with half of its last unsynced batch written (torn tail); it acked none of it, recovers the
     * valid prefix and catches up.
     */
    static void followerTornTail(Mutations m) {
        Script s = new Script(3, m);
        s.elect(2);
        s.appliedEverywhere(s.commit("a"));
        s.sim.stallDisk(0, true);
        long last = 0;
        for (int i = 0; i < 4; i++) {
            last = s.write("t" + i);
        }
        long end = last;
        s.until(() -> s.r(0).lastAppendedZxid() >= end, "n0 appends the batch");
        long acked = s.r(0).durableZxid();
        s.sim.crashTorn(0);
        s.sim.stallDisk(0, false);
        assertTrue(acked < end);
        s.sim.restart(0);
        long after = s.commit("after");
        s.appliedEverywhere(after);
        assertTrue(s.sim.holds(0, "t3"));
    }

    /**
     * Clean hand-over (docs/replication.md, Elections): the leader stops serving, waits for its most up-to-date
     * follower and tells it to campaign; the follower wins the next epoch at once (no election timeout), nothing is
     * lost.
     */
    static void leadershipTransfer(Mutations m) {
        Script s = new Script(3, m);
        s.elect(2);
        s.commit("a");
        long b = s.commit("b");
        long epoch = s.sim.role(2).epoch();
        long start = s.sim.now;
        s.sim.replica(2).transferLeadership();
        s.until(() -> s.sim.leader() >= 0 && s.sim.leader() != 2, "a new in-service leader");
        assertTrue(s.sim.now - start < 10 * Sim.TICK, "hand-over waited for an election timeout");
        assertEquals(epoch + 1, s.sim.role(s.sim.leader()).epoch());
        s.appliedEverywhere(s.commit("c"));
        assertTrue(s.sim.applied(2) > b);
    }

    /**
     * A follower's ack of the new EPOCH record is lost (found by the simulator: the leader stayed out of service
     * forever once writes stopped); the next heartbeat answer repeats the durable point and the leader serves.
     */
    static void lostAckRecoveredByHeartbeat(Mutations m) {
        Script s = new Script(3, m);
        s.sim.dropFilter = (from, to, msg) -> to == 2 && msg instanceof Ack;
        s.elect(2);
        s.appliedEverywhere(s.commit("a"));
    }

    // ------------------------------------------------------------------------------------------------ tests

    @Test
    void zookeeper3911AckOnlyAfterFsync() {
        zk3911(Mutations.NONE);
        zk3911Released(Mutations.NONE);
    }

    @Test
    void zookeeper4646NoEpochAckWhileTheDiffIsUnsynced() {
        zk4646(Mutations.NONE);
    }

    @Test
    void zookeeper4643EpochNeverAheadOfHistory() {
        zk4643(Mutations.NONE);
    }

    @Test
    void zookeeper4785UnpersistedDiffLosesTheElection() {
        zk4785(Mutations.NONE);
    }

    @Test
    void zookeeper4925NoDiscontiguousDiff() {
        zk4925(Mutations.NONE);
    }

    @Test
    void zookeeper3642SnapshotReportedOnlyWhenDurable() {
        zk3642(Mutations.NONE);
    }

    @Test
    void zookeeper2832StaleTailTruncated() {
        zk2832(Mutations.NONE);
    }

    @Test
    void zookeeper2832SnapTruncatesTheStaleTailFirst() {
        zk2832Snap(Mutations.NONE);
    }

    @Test
    void zookeeper1675NoReadThroughADeposedLeader() {
        zk1675(Mutations.NONE);
    }

    @Test
    void zookeeper4685CumulativeAcksNeedNoReElection() {
        zk4685(Mutations.NONE);
    }

    @Test
    void zookeeper1154UncommittedTailNeverApplied() {
        zk1154(Mutations.NONE);
    }

    @Test
    void zookeeper4394LateCommitToALateJoiner() {
        zk4394(Mutations.NONE);
    }

    @Test
    void leaderDiesBetweenProposeAndCommit() {
        leaderDiesBeforeCommitHolderWins(Mutations.NONE);
        leaderDiesBeforeCommitOtherWins(Mutations.NONE);
    }

    @Test
    void partitionedOldLeaderCommitsNothing() {
        partitionedOldLeader(Mutations.NONE);
    }

    @Test
    void twoElectionsInARowDropStaleEpochs() {
        twoElectionsInARow(Mutations.NONE);
    }

    @Test
    void followerWithAFullDiskStopsAndCatchesUp() {
        followerDiskFull(Mutations.NONE);
    }

    @Test
    void aLostAckCostsOneHeartbeat() {
        lostAckRecoveredByHeartbeat(Mutations.NONE);
    }

    @Test
    void leadershipTransferNeedsNoElectionTimeout() {
        leadershipTransfer(Mutations.NONE);
    }

    @Test
    void followerWithATornTailRecoversAndCatchesUp() {
        followerTornTail(Mutations.NONE);
    }

    @Test
    void aSlowLeaderDiskDoesNotStallCommits() {
        slowLeaderDisk(Mutations.NONE);
    }

    @Test
    void aFormerLeaderAheadOfItsDiskSyncsOnlyOnceItsDiskCaughtUp() {
        formerLeaderAheadOfItsDisk(Mutations.NONE);
    }

    @Test
    void aFollowerCountsTheLeadersDurablePointOnlyWithItsOwnDisk() {
        leaderDurableCountsOnlyWithTheFollowersOwnDisk(Mutations.NONE);
    }
}
