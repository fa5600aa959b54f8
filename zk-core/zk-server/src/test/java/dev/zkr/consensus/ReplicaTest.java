package dev.zkr.consensus;

import static dev.zkr.consensus.EpochTableTest.table;
import static dev.zkr.consensus.EpochTableTest.z;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zkr.consensus.ReplicaMessage.Ack;
import dev.zkr.consensus.ReplicaMessage.FollowerInfo;
import dev.zkr.consensus.ReplicaMessage.Heartbeat;
import dev.zkr.consensus.ReplicaMessage.HeartbeatAck;
import dev.zkr.consensus.ReplicaMessage.PreVote;
import dev.zkr.consensus.ReplicaMessage.PreVoteAck;
import dev.zkr.consensus.ReplicaMessage.Propose;
import dev.zkr.consensus.ReplicaMessage.SyncStart;
import dev.zkr.consensus.ReplicaMessage.Vote;
import dev.zkr.consensus.ReplicaMessage.VoteAck;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** One rule per test, on one replica driven by hand over an in-memory disk. */
class ReplicaTest {
    static final byte[] P = {1};

    /** A replica, its disk, and a driver that executes each Ready like a server (fsync only when told). */
    static final class One {
        final SimDisk disk = new SimDisk("t");
        final int id;
        final List<Integer> members;
        /** The driver fetches snapshots slowly: a Ready's install is not put on the disk. */
        boolean transfersPending;
        Replica r;

        One(int id, List<Integer> members) {
            this.id = id;
            this.members = members;
        }

        /** Puts durable records and meta on the disk before the replica starts. */
        One withLog(Meta meta, long... zxids) {
            disk.persistMeta(meta);
            List<Entry> es = new ArrayList<>();
            for (long x : zxids) {
                es.add(new Entry(x, x == 0 ? new byte[0] : P));
            }
            disk.completeThrough(disk.append(es));
            return this;
        }

        One start() {
            r = new Replica(new ReplicaConfig(id, members, 10, 2, 2, new SplittableRandom(7)), disk, disk.meta());
            return this;
        }

        Ready next() {
            Ready rd = r.ready();
            if (rd.meta() != null) {
                disk.persistMeta(rd.meta());
            }
            if (rd.truncateAfter() != Zxid.NONE) {
                disk.truncateAfter(rd.truncateAfter());
            }
            if (rd.install() != Zxid.NONE && !transfersPending) {
                disk.install(rd.install(), null);
            }
            if (!rd.append().isEmpty()) {
                disk.append(rd.append());
            }
            r.advance();
            return rd;
        }

        Ready step(int from, ReplicaMessage m) {
            r.step(from, m);
            return next();
        }

        Ready fsync() {
            disk.completeThrough(disk.lastSeq());
            r.localDurable(disk.durableLast());
            return next();
        }

        /** Campaigns and wins with grants from every peer. */
        void win() {
            r.campaign();
            next();
            long epoch = r.roleInfo().epoch() + 1;
            for (int p : members) {
                if (p != id && r.roleInfo().role() == Role.CANDIDATE) {
                    step(p, new PreVoteAck(epoch - 1, epoch, true));
                }
            }
            for (int p : members) {
                if (p != id && r.roleInfo().role() == Role.CANDIDATE) {
                    step(p, new VoteAck(epoch, true));
                }
            }
            assertEquals(Role.LEADER, r.roleInfo().role());
        }
    }

    static <T extends ReplicaMessage> List<T> sent(Ready rd, Class<T> type) {
        List<T> out = new ArrayList<>();
        for (Envelope e : rd.messages()) {
            if (type.isInstance(e.message())) {
                out.add(type.cast(e.message()));
            }
        }
        return out;
    }

    /** A follower of leader 2 in epoch 1, synced by DIFF at {@code at}. */
    static One syncedFollower(long at, long... log) {
        One f = new One(0, List.of(0, 1, 2)).withLog(new Meta(1, 2), log).start();
        f.next();
        Ready rd = f.step(2, new Heartbeat(1, 0, 0, -1, Zxid.NONE));
        FollowerInfo fi = sent(rd, FollowerInfo.class).get(0);
        f.step(2, new SyncStart(1, fi.syncId(), SyncMode.DIFF, at));
        return f;
    }

    @Test
    void aSingleMemberElectsItselfAtStartAndCommitsOnLocalDurability() {
        One one = new One(1, List.of(1)).start();
        Ready rd = one.next();
        assertEquals(new Meta(1, 1), rd.meta());
        assertEquals(List.of(z(1, 0)), rd.append().stream().map(Entry::zxid).toList());
        assertEquals(new RoleInfo(Role.LEADER, 1, 1, false), rd.role());
        rd = one.fsync();
        assertEquals(z(1, 0), rd.commit());
        assertTrue(rd.role().inService());
        long a = one.r.propose(P);
        assertEquals(z(1, 1), a);
        assertEquals(z(1, 0), one.next().commit(), "committed before it is durable");
        assertEquals(a, one.fsync().commit());
        one.r.readIndex(5);
        assertEquals(List.of(new ReadState(5, a)), one.next().readStates());
        // restart: a new epoch, its EPOCH record commits the tail
        SimDisk disk = one.disk;
        disk.mark(a);
        disk.completeThrough(disk.lastSeq());
        disk.crash(null);
        Replica again = new Replica(new ReplicaConfig(1, List.of(1), 10, 2, 2, new SplittableRandom(1)), disk,
                disk.meta());
        assertEquals(a, again.commitZxid());
        assertEquals(List.of(z(2, 0)), again.ready().append().stream().map(Entry::zxid).toList());
    }

    @Test
    void p1TheCandidatesVoteIsPersistedInTheReadyThatSendsIt() {
        One c = new One(0, List.of(0, 1, 2)).start();
        c.next();
        c.r.campaign();
        Ready pre = c.next();
        assertNull(pre.meta(), "a pre-vote persists nothing");
        assertEquals(2, sent(pre, PreVote.class).size());
        Ready vote = c.step(1, new PreVoteAck(0, 1, true));
        assertEquals(new Meta(1, 0), vote.meta());
        assertEquals(List.of(new Vote(1, 0), new Vote(1, 0)), sent(vote, Vote.class));
        Ready won = c.step(2, new VoteAck(1, true));
        assertEquals(Role.LEADER, won.role().role());
        assertEquals(z(1, 0), won.append().get(0).zxid());
    }

    @Test
    void p1AVoterPersistsItsGrantAndGrantsOncePerEpoch() {
        One v = new One(0, List.of(0, 1, 2)).start();
        v.next();
        Ready rd = v.step(2, new Vote(1, 0));
        assertEquals(new Meta(1, 2), rd.meta());
        assertEquals(List.of(new VoteAck(1, true)), sent(rd, VoteAck.class));
        rd = v.step(1, new Vote(1, z(0, 0)));
        assertNull(rd.meta());
        assertEquals(List.of(new VoteAck(1, false)), sent(rd, VoteAck.class));
    }

    @Test
    void aBetterVoterRefusesAndCampaignsForTheSameEpoch() {
        One v = new One(0, List.of(0, 1, 2)).withLog(new Meta(1, 2), z(1, 0), z(1, 1)).start();
        v.next();
        Ready rd = v.step(2, new Vote(2, z(1, 0)));
        assertEquals(new Meta(2, 0), rd.meta());
        assertEquals(List.of(new VoteAck(2, false)), sent(rd, VoteAck.class));
        assertEquals(List.of(new Vote(2, z(1, 1)), new Vote(2, z(1, 1))), sent(rd, Vote.class));
    }

    @Test
    void ranksByLastDurableZxidThenId() {
        One v = new One(1, List.of(0, 1, 2)).withLog(new Meta(1, 2), z(1, 0), z(1, 1)).start();
        v.next();
        assertTrue(v.r.ranksAbove(2, z(1, 1)));
        assertFalse(v.r.ranksAbove(0, z(1, 1)));
        assertTrue(v.r.ranksAbove(0, z(2, 0)));
        assertFalse(v.r.ranksAbove(2, z(1, 0)));
    }

    @Test
    void preVoteIsRefusedWhileTheLeaderIsAlive() {
        One f = syncedFollower(0);
        Ready rd = f.step(1, new PreVote(2, z(9, 9)));
        assertEquals(List.of(new PreVoteAck(1, 2, false)), sent(rd, PreVoteAck.class));
        assertNull(rd.meta());
        for (int i = 0; i < 25; i++) {
            f.r.tick();
            f.next();
        }
        // silent leader: the follower campaigned itself or grants; either way it no longer protects epoch 1
        assertFalse(f.r.hasLiveLeader());
    }

    @Test
    void p4AFollowerAcksOnlyWhatItsDiskReportedDurable() {
        One f = syncedFollower(0);
        Ready rd = f.step(2, new Propose(1, 0, z(1, 0), new byte[0]));
        assertEquals(1, rd.append().size());
        assertTrue(sent(rd, Ack.class).isEmpty(), "ack before fsync");
        rd = f.step(2, new Propose(1, z(1, 0), z(1, 1), P));
        assertTrue(sent(rd, Ack.class).isEmpty());
        rd = f.fsync();
        assertEquals(List.of(new Ack(1, z(1, 1))), sent(rd, Ack.class), "one cumulative ack");
    }

    @Test
    void aFollowerRefusesADiscontiguousProposalAndAsksForASync() {
        One f = syncedFollower(0);
        f.step(2, new Propose(1, 0, z(1, 0), new byte[0]));
        Ready rd = f.step(2, new Propose(1, z(1, 1), z(1, 2), P));
        assertTrue(rd.append().isEmpty());
        assertEquals(1, sent(rd, FollowerInfo.class).size());
        assertEquals(z(1, 0), f.r.lastAppendedZxid());
    }

    /**
     * Seed 441 of the whole-server simulator: the new link to the leader was reported up before the old one down, so
     * the leader stays in the follower's down set while its heartbeats (of no sync: it saw the reset) keep coming.
     * The follower must still ask for a sync and follow again, not ack those heartbeats unsynced for good.
     */
    @Test
    void aFollowerHearingItsLeaderResyncsEvenIfItsLinkIsStillReportedDown() {
        One f = syncedFollower(0);
        f.r.peerUp(2); // the new connection's notice, first
        f.next();
        f.r.peerDown(2); // the old connection's, late
        f.next();
        Ready rd = f.step(2, new Heartbeat(1, 0, 7, -1, Zxid.NONE));
        List<FollowerInfo> asked = sent(rd, FollowerInfo.class);
        assertEquals(1, asked.size(), "no sync asked for: " + rd.messages());
        rd = f.step(2, new SyncStart(1, asked.get(0).syncId(), SyncMode.DIFF, 0));
        assertEquals(List.of(new Ack(1, 0)), sent(rd, Ack.class));
        rd = f.step(2, new Propose(1, 0, z(1, 0), new byte[0]));
        assertEquals(1, rd.append().size(), "a synced follower appends");
        rd = f.fsync();
        assertEquals(List.of(new Ack(1, z(1, 0))), sent(rd, Ack.class));
    }

    @Test
    void p2TruncationComesFirstAndNeverBelowTheCommitPoint() {
        One f = new One(0, List.of(0, 1, 2)).withLog(new Meta(1, 2), z(1, 0), z(1, 1), z(1, 2)).start();
        f.next();
        FollowerInfo fi = sent(f.step(2, new Heartbeat(2, 0, 0, -1, Zxid.NONE)), FollowerInfo.class).get(0);
        assertEquals(z(1, 2), fi.lastZxid());
        Ready rd = f.step(2, new SyncStart(2, fi.syncId(), SyncMode.TRUNC, z(1, 1)));
        assertEquals(z(1, 1), rd.truncateAfter());
        assertEquals(z(1, 1), f.disk.lastZxid());
        rd = f.step(2, new Propose(2, z(1, 1), z(2, 0), new byte[0]));
        assertEquals(Zxid.NONE, rd.truncateAfter());
        f.fsync();
        f.step(2, new ReplicaMessage.Commit(2, z(2, 0)));
        assertEquals(z(2, 0), f.r.commitZxid());
        FollowerInfo again = sent(f.step(2, new Propose(2, z(2, 5), z(2, 6), P)), FollowerInfo.class).get(0);
        assertThrows(ConsensusViolation.class,
                () -> f.r.step(2, new SyncStart(2, again.syncId(), SyncMode.TRUNC, z(1, 1))));
    }

    @Test
    void aFollowerThatGivesUpASnapshotInstallAsksForANewSyncAndMayCampaignAgain() {
        One f = new One(0, List.of(0, 1, 2)).withLog(new Meta(1, 2), z(1, 0), z(1, 1), z(1, 2)).start();
        f.transfersPending = true;
        f.next();
        FollowerInfo fi = sent(f.step(2, new Heartbeat(2, 0, 0, -1, Zxid.NONE)), FollowerInfo.class).get(0);
        Ready rd = f.step(2, new SyncStart(2, fi.syncId(), SyncMode.SNAP, z(2, 4)));
        assertEquals(z(2, 4), rd.install());
        for (int i = 0; i < 60; i++) { // the leader falls silent mid-transfer: an installing follower waits
            f.r.tick();
            f.next();
            assertEquals(Role.FOLLOWER, f.r.roleInfo().role(), "campaigned while installing");
        }
        f.r.installAborted(z(2, 5)); // not the snapshot being installed: ignored
        assertFalse(f.r.hasReady());
        f.r.installAborted(z(2, 4)); // the driver gives up the transfer
        rd = f.next();
        List<FollowerInfo> again = sent(rd, FollowerInfo.class);
        assertEquals(1, again.size(), "asks its leader for a new sync");
        assertEquals(f.disk.lastZxid(), again.get(0).lastZxid());
        assertEquals(f.disk.lastZxid(), f.r.lastAppendedZxid());
        boolean campaigned = false;
        for (int i = 0; i < 60 && !campaigned; i++) {
            f.r.tick();
            f.next();
            campaigned = f.r.roleInfo().role() == Role.CANDIDATE;
        }
        assertTrue(campaigned, "a follower no longer installing campaigns when its leader is silent");
    }

    @Test
    void aStaleSyncStartIsIgnored() {
        One f = syncedFollower(0);
        Ready rd = f.step(2, new SyncStart(1, 99, SyncMode.TRUNC, 0));
        assertEquals(Zxid.NONE, rd.truncateAfter());
        assertTrue(rd.messages().isEmpty());
    }

    @Test
    void theLeaderSyncsFromTheExactCommonPrefix() {
        One l = new One(2, List.of(0, 1, 2))
                .withLog(new Meta(3, 2), z(1, 0), z(1, 1), z(1, 2), z(3, 0)).start();
        l.next();
        l.win();
        l.next();
        assertEquals(4, l.r.roleInfo().epoch());
        // ZOOKEEPER-2832's B: ...(1,2)(2,0)(2,1), committed through (1,1)
        Ready rd = l.step(1, new FollowerInfo(4, 7, z(2, 1), z(1, 1), table(z(1, 2), z(2, 1))));
        assertEquals(new SyncStart(4, 7, SyncMode.TRUNC, z(1, 2)), sent(rd, SyncStart.class).get(0));
        assertEquals(List.of(z(3, 0), z(4, 0)), sent(rd, Propose.class).stream().map(Propose::zxid).toList());
        assertEquals(z(1, 2), sent(rd, Propose.class).get(0).prevZxid());
        // a prefix: DIFF
        rd = l.step(0, new FollowerInfo(4, 3, z(1, 1), z(1, 0), table(z(1, 1))));
        assertEquals(new SyncStart(4, 3, SyncMode.DIFF, z(1, 1)), sent(rd, SyncStart.class).get(0));
        assertEquals(3, sent(rd, Propose.class).size());
        // the common prefix purged: SNAP of the newest snapshot, then what follows it
        l.disk.snapshotAndPurge(z(3, 0));
        rd = l.step(0, new FollowerInfo(4, 4, z(1, 1), z(1, 0), table(z(1, 1))));
        assertEquals(new SyncStart(4, 4, SyncMode.SNAP, z(3, 0)), sent(rd, SyncStart.class).get(0));
        assertEquals(List.of(z(4, 0)), sent(rd, Propose.class).stream().map(Propose::zxid).toList());
        // a follower claiming a commit the leader lacks is a bug report, not a silent truncation
        assertThrows(ConsensusViolation.class,
                () -> l.r.step(1, new FollowerInfo(4, 8, z(3, 5), z(3, 5), table(z(3, 5)))));
    }

    @Test
    void theLeaderCommitsOnlyZxidsOfItsOwnEpoch() {
        One l = new One(2, List.of(0, 1, 2)).withLog(new Meta(1, 2), z(1, 0), z(1, 1)).start();
        l.next();
        l.win();
        l.fsync();
        l.step(1, new FollowerInfo(2, 1, z(1, 1), 0, table(z(1, 0), z(1, 1))));
        Ready rd = l.step(1, new Ack(2, z(1, 1)));
        assertEquals(0, rd.commit(), "counted an old epoch's zxid as committed");
        assertFalse(rd.role().inService());
        rd = l.step(1, new Ack(2, z(2, 0)));
        assertEquals(z(2, 0), rd.commit(), "the EPOCH record commits everything before it");
        assertTrue(rd.role().inService());
    }

    @Test
    void anIsolatedLeaderStepsDownWithinTheElectionTimeout() {
        One l = new One(2, List.of(0, 1, 2)).start();
        l.next();
        l.win();
        for (int i = 0; i < 10; i++) {
            l.r.tick();
            l.next();
            if (i == 3) {
                l.step(1, new HeartbeatAck(1, 0));
            }
        }
        assertEquals(Role.LEADER, l.r.roleInfo().role(), "heard from a quorum in this window");
        for (int i = 0; i < 10; i++) {
            l.r.tick();
            l.next();
        }
        assertEquals(Role.FOLLOWER, l.r.roleInfo().role());
    }

    @Test
    void readIndexAnswersOnlyAfterAQuorumAckedAHeartbeatSentAfterIt() {
        One l = new One(2, List.of(0, 1, 2)).start();
        l.next();
        l.win();
        l.fsync();
        l.step(1, new FollowerInfo(1, 1, 0, 0, EpochTable.EMPTY));
        l.step(1, new Ack(1, z(1, 0)));
        assertTrue(l.r.roleInfo().inService());
        l.r.readIndex(11);
        Ready rd = l.next();
        assertTrue(rd.readStates().isEmpty());
        long round = sent(rd, Heartbeat.class).get(0).round();
        rd = l.step(0, new HeartbeatAck(1, round - 1));
        assertTrue(rd.readStates().isEmpty(), "an ack of an older heartbeat counted");
        rd = l.step(0, new HeartbeatAck(1, round));
        assertEquals(List.of(new ReadState(11, z(1, 0))), rd.readStates());
        One f = syncedFollower(0);
        f.r.readIndex(12);
        assertTrue(f.next().readStates().get(0).refused());
    }

    @Test
    void aStaleLeaderIsToldTheNewerEpochAndStepsDown() {
        One f = new One(0, List.of(0, 1, 2)).withLog(new Meta(3, 1)).start();
        f.next();
        Ready rd = f.step(2, new Heartbeat(2, 0, 0, -1, Zxid.NONE));
        assertEquals(List.of(new HeartbeatAck(3, -1)), sent(rd, HeartbeatAck.class));
        One l = new One(2, List.of(0, 1, 2)).start();
        l.next();
        l.win();
        rd = l.step(0, new HeartbeatAck(3, -1));
        assertEquals(new Meta(3, -1), rd.meta());
        assertEquals(Role.FOLLOWER, rd.role().role());
    }

    @Test
    void startupRefusesALogAheadOfItsAcceptedEpoch() {
        One bad = new One(0, List.of(0, 1, 2)).withLog(new Meta(1, 2), z(1, 0), z(2, 0));
        assertThrows(ConsensusViolation.class, bad::start);
    }

    @Test
    void noInputBetweenReadyAndAdvance() {
        One f = new One(0, List.of(0, 1, 2)).start();
        f.r.ready();
        assertThrows(IllegalStateException.class, f.r::tick);
        f.r.advance();
        f.r.tick();
    }
}
