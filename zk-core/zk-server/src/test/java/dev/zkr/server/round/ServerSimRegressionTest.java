package dev.zkr.server.round;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Seeds of the whole-server simulator that found server bugs, kept by name. While a bug is open its test is a strict
 * expected failure: it passes as long as the seed still shows that bug (so the seed stays a witness), and fails once
 * the seed passes — then it becomes a must-pass test. Fixed on main c9cbbf1: 17, 5, 19, 9, 1, 332; on c153c29: 92,
 * 18; on sim441: 441; on simbatch: 343. Open: 21680.
 */
class ServerSimRegressionTest {

    /**
     * Standalone server (main e49ead3; passes at 2009331): a session sends sync x1, getData x2 /k0, create x3 /k0.
     * The sync now waits for a read point (ReadIndex) while the create commits and is applied; the read queued behind
     * the sync is served after that, from a tree holding its own session's later create: it returns 'c3.2' v0 at
     * 1.7 while the create is answered at 1.6. A read must not see a write its client sent after it.
     */
    @Test
    void seed17StandaloneReadBehindASyncSeesTheSessionsLaterWrite() {
        mustPass(17, ServerSim.Options.standard(17, false).withServers(1));
    }

    /**
     * 3 servers, new faults, exactly-once clients (found 2026-11-30 by the clients' "an expired session stays expired"
     * check): follower s2 forwards c1's new session (committed at 4.1), its ack of 4.1 is lost with a reset of the
     * s2-s3 link; s2 applies 4.1 on its own disk and the leader's, connects the session and forwards its first write
     * x41 on the new link ahead of the ack it sends again after re-syncing; leader s3, not having applied the create,
     * finds no session and answers SESSION_EXPIRED, and the session's later write x45 is applied.
     * Fixed: the leader holds a follower's requests of a session whose CreateSession it sequenced until it applies it.
     */
    @Test
    void seed343LiveSessionsFirstForwardedWriteRefusedAsExpiredAfterALinkReset() {
        mustPass(343, ServerSim.Options.standard(343, false).withNewFaults().withResend());
    }

    /**
     * 3 servers, batched rounds: leader s1 takes a follower's ack of a new session's CreateSession and that session's
     * first forwarded write in one round; the ack commits the create, applied only as the round ends, so the write
     * found no session and was answered SESSION_EXPIRED (zk-testkit's NewSessionFirstWriteTest on real servers).
     * Fixed as seed 343 (Core's round split, ended before a follower's request after a consensus message, is gone).
     */
    @Test
    void seed21BatchedLeaderTakesTheAckAndTheNewSessionsFirstWriteInOneRound() {
        mustPass(21, ServerSim.Options.standard(21, false).withServers(3).withoutWritesAfterReads().withNewFaults()
                .withBatchedRounds());
    }

    /**
     * 3 servers, new faults (simfaults): leader s3's wall clock jumps ahead twice (+3.2 s, +8.4 s) and stamps its txns
     * with it; s2, elected for epoch 3, logs its EPOCH record with its own raw wall clock, 11.6 s older than the txn
     * before it ("txn time goes back at 3.0").
     * Fixed: txn times and EPOCH records come from one {@code TxnClock}, max(wall clock, newest txn time logged).
     */
    @Test
    void seed2EpochRecordOlderThanTheOldLeadersTxnsAfterItsClockJumpedAhead() {
        mustPass(2, ServerSim.Options.standard(2, false).withNewFaults());
    }

    /**
     * 3 servers, no peer-link loss: on a follower, getData x10 waits behind an earlier forwarded request of its
     * session; create x11 is forwarded, committed and applied meanwhile; x10 is then served at 1.21 and returns the
     * node x11 created (at 1.18).
     */
    @Test
    void seed5FollowerReadBehindAForwardSeesTheSessionsLaterWrite() {
        mustPass(5, ServerSim.Options.standard(5, false).withServers(3).withoutPeerLoss());
    }

    /**
     * 5 servers, no peer-link loss, clients never write while one of their reads waits... except behind a failed
     * forwarded write: follower s3 forwards delete x1 (fails NoNode, answered once s3 applied 1.4), getData x2 waits
     * behind it, create x3 is forwarded and applied at 1.5; x2 is served at 1.6, after its session's later write.
     */
    @Test
    void seed19FollowerReadBehindAFailedForwardIsServedAfterTheLaterWrite() {
        mustPass(19, ServerSim.Options.standard(19, false).withServers(5).withoutPeerLoss());
    }

    /**
     * 3 servers: follower s3 forwards setData x56 to leader s1; the s1-s3 peer connection resets with the Forward in
     * flight (peerDown/peerUp on both sides, s3 still follows s1 in the same epoch). s3 never answers x56 nor fails
     * it, and every later request of the session (pings included) queues behind it: the client hangs with its
     * connection up. Same with a ForwardSession (a new client's handshake) lost in the same reset.
     */
    @Test
    void seed9ForwardLostInAPeerLinkResetIsNeverAnswered() {
        mustPass(9, ServerSim.Options.standard(9, false));
    }

    /**
     * 3 servers: one-way partition s1 -/-> s3 (leader s3 keeps sending heartbeats, s1 keeps following); s1 forwards
     * sync x8 as SyncRead, which is dropped. After the heal s1 never resends or fails it: the client hangs.
     */
    @Test
    void seed1SyncLostInAOneWayPartitionIsNeverAnswered() {
        mustPass(1, ServerSim.Options.standard(1, false));
    }

    /**
     * 3 servers: one-way partition s3 -/-> s2 (leader s2); a new client's handshake on s3 becomes a ForwardSession,
     * which is dropped. It is neither answered nor refused after the heal: the hold limit (2T) covers only
     * handshakes not yet forwarded, so the handshake waits for good (a real client's attempt times out; the
     * follower keeps the entry).
     */
    @Test
    void seed332HandshakeForwardedIntoAPartitionIsNeverAnswered() {
        mustPass(332, ServerSim.Options.standard(332, false).withServers(3).withoutWritesAfterReads());
    }

    /**
     * 5 servers (main 4adf7e3): follower s3 forwards setData x3 and sync x4, getData x5 waits behind them; the leader
     * crashes; x3 is answered CONNECTION_LOSS and the connection fenced; x4 is answered, then the next sync x6 — and
     * x5 only after it (or never): replies out of request order. The fence seems to hold a read that was queued
     * before the loss while later requests pass it.
     */
    @Test
    void seed92ReplyOrderBrokenAfterAForwardedWritesConnectionLoss() {
        mustPass(92, ServerSim.Options.standard(92, false));
    }

    /**
     * 3 servers (main 4adf7e3): follower s1 forwards sync x90 as SyncRead(ctx 8) to leader s3; the SyncReadReply is
     * dropped by a one-way partition s3 -/-> s1 (silent, the link stays up), s1 keeps following s3. The sync is
     * never answered nor failed (forwards undecided for 2T are, syncs apparently not), and x91.. wait behind it.
     */
    @Test
    void seed18SyncReadReplyLostInAPartitionIsNeverAnswered() {
        mustPass(18, ServerSim.Options.standard(18, false));
    }

    /**
     * 3 servers (main ad3a86b): the link between leader s3 and follower s2 resets with a Propose in flight; s2 heard
     * the new connection up before the old one down (the simulator let the notices cross; PeerTransport never does),
     * so s3 stayed in s2's down set; s3's heartbeats carried no sync and s2 acked them unsynced for good, as
     * Follower.requestSync asked nothing while the leader was reported down. Its clients waited behind a fence
     * whose read point (3.4) it never applied. Fixed in both places: the simulator orders each side's notices, and
     * a follower hearing its leader asks for a sync whatever the link's last notice said.
     */
    @Test
    void seed441FollowerNeverResyncsAfterALinkReset() {
        mustPass(441, ServerSim.Options.standard(441, false));
    }

    /**
     * 3 servers, new faults with snapshots (fixed): leader s2 snapshots 2.4 and purges its log to it; follower s1
     * (log 2.4 durable and acked, commit point 2.0, s3 cut off) was synced by SNAP and truncated after its commit
     * point (P3 a as first written) the records 2.1-2.4 — committed, and before the snapshot covering them was
     * installed, durable on s2 alone: s2 crashing then would have let s1 and s3 elect a leader without them. Now a
     * SNAP follower cuts after min(durable, s - 1), and a follower reaching the leader's base is DIFFed.
     */
    @Test
    void seed1102SnapTruncationDropsCommittedRecordsBeforeTheSnapshotIsDurable() {
        mustPass(1102, ServerSim.Options.standard(1102, false).withNewFaults());
    }

    /**
     * 3 servers, new faults with snapshots: s3's clock is 7.6 s behind; it SNAP-installs 2.5 (records it never
     * logged, times from s2's clock), is elected for epoch 3 and stamped its EPOCH record max(its clock, the newest
     * txn time it saw) — older than 2.5, as a snapshot carried no txn time. Fixed: snapshots carry the newest txn
     * time (DataTree trailer) and an install or a restart from a snapshot tells the TxnClock.
     */
    @Test
    void seed291EpochRecordAfterASnapInstallIsOlderThanTheSnapshotsTxns() {
        mustPass(291, ServerSim.Options.standard(291, false).withNewFaults());
    }

    /**
     * 5 servers, open (sim441; seeds 1–21,679 pass): old leader s4, cut off with s3 and not yet stepped down, refused
     * s3's forwarded delete /k0 v3 with BAD_VERSION from its stale tree while the new leader s5 had deleted /k0
     * (NO_NODE): a leader answers the writes it refuses without a quorum, so a deposed one is not linearizable.
     */
    @Test
    void seed21680DeposedLeaderRefusesAWriteFromItsStaleTree() {
        mustPass(21680, ServerSim.Options.standard(21680, false));
    }

    /**
     * 5 servers, exactly-once clients with TTL traffic (found by the merge of main into exactlyonce, issue 30): c5's
     * setData x42 went through s1 to leader s5 and was applied; its connection dropped, c5 re-attached at s2 (a
     * handshake s2 held, then lost) and at s4, and sent x42 again through s4. The new leader s3 took s4's Attach, then
     * s2's late one, so the session's owner was s2, and refused s4's forward of x42 SESSION_MOVED before its
     * duplicate check: the client was told a write failed that had been applied (the history checker's "impossible
     * in this state"). Fixed: a write applied or sequenced already is answered with its saved reply first, whichever
     * server owns the session (it applies nothing).
     */
    @Test
    void seed904ASentAgainWriteIsAnsweredSessionMovedAfterItWasApplied() {
        mustPass(904, ServerSim.Options.standard(904, false).withNewFaults().withResend().withTtl());
    }

    private static void mustPass(long seed, ServerSim.Options options) {
        Throwable failure = ServerSimTest.failureOf(seed, options);
        assertTrue(failure == null, () -> ServerSimTest.report(seed, options, failure));
    }

    /** An open bug's seed: passes while the seed still fails with {@code witness}; fails once it passes (move it). */
    private static void stillFails(long seed, ServerSim.Options options, String witness) {
        Throwable failure = ServerSimTest.failureOf(seed, options);
        assertNotNull(failure, "seed " + seed + " passes now: the bug it witnessed is fixed — move it to mustPass");
        assertTrue(String.valueOf(failure.getMessage()).contains(witness),
                () -> "seed " + seed + " fails differently now:\n" + ServerSimTest.report(seed, options, failure));
    }
}
