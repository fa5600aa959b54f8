package dev.zkr.server.round;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The whole-server simulator's checks can see what they claim: a test-only bug in the read path or the log, switched
 * on in the simulator, must fail a seed within a few hundred — by zk-check's history checks alone (per-event
 * invariants off), and by the full run. Prints one kill-table row per bug.
 */
class ServerSimKillTest {

    static final int MAX_SEEDS = 200;

    static Stream<Arguments> bugs() {
        return Stream.of(
                Arguments.of("acknowledge before fsync", (UnaryOperator<ServerSim.Options>)
                        ServerSim.Options::withAckBeforeFsync),
                Arguments.of("plain reads jump the session's writes", (UnaryOperator<ServerSim.Options>)
                        o -> o.withReadBug(SimServer.ReadBug.READS_JUMP_THE_QUEUE)),
                Arguments.of("reads served from a lagging tree", (UnaryOperator<ServerSim.Options>)
                        o -> o.withReadBug(SimServer.ReadBug.STALE_READS)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("bugs")
    void caught(String bug, UnaryOperator<ServerSim.Options> withBug) {
        long historySeed = firstFailing(seed -> withBug.apply(base(seed)).historyOnly());
        Throwable byHistory = ServerSimTest.failureOf(historySeed, withBug.apply(base(historySeed)).historyOnly());
        assertTrue(byHistory instanceof ServerSim.HistoryViolation,
                bug + ": with invariants off, seed " + historySeed + " failed otherwise: " + byHistory);
        long fullSeed = firstFailing(seed -> withBug.apply(base(seed)));
        Throwable byRun = ServerSimTest.failureOf(fullSeed, withBug.apply(base(fullSeed)));
        System.out.printf("kill | %-40s | history checks: seed %d: %s | full run: seed %d: %s%n", bug, historySeed,
                oneLine(byHistory), fullSeed, oneLine(byRun));
    }

    static Stream<Arguments> faultBugs() {
        return Stream.of(
                Arguments.of(SimServer.FaultBug.ROUNDS_ON_WALL_CLOCK, "ms after its client's last request reached it"),
                Arguments.of(SimServer.FaultBug.EPOCH_ON_WALL_CLOCK, "txn time goes back"),
                Arguments.of(SimServer.FaultBug.ACK_WHEN_DISK_FULL, "which is not durable on a majority"),
                Arguments.of(SimServer.FaultBug.TORN_TAIL_CUT_TOO_FAR, "recovery of a torn record"),
                Arguments.of(SimServer.FaultBug.PURGE_PAST_SNAPSHOT,
                        "SNAP|not durable on a majority|differs from the tree"),
                Arguments.of(SimServer.FaultBug.SET_ACL_REPLAY_KEEPS_AVERSION, "differs from the tree|aversion"),
                Arguments.of(SimServer.FaultBug.FORGET_WRITES_ON_RESTART, "differs from|applied twice"),
                Arguments.of(SimServer.FaultBug.FORGET_WRITES_ON_SNAP, "differs from|applied twice"));
    }

    /**
     * The bugs around the new faults break server-side invariants (witness: what the failure must say, alternatives
     * split by |; the same seed must pass without the bug), not (first) client histories: a live session
     * expired by a forward clock jump, an EPOCH record older than the txn before it, a write on a full disk
     * acknowledged, a torn tail's recovery losing a valid record, a recovered node's ACL version left behind (with
     * the clients' ACL traffic).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("faultBugs")
    void faultBugCaught(SimServer.FaultBug bug, String witness) {
        long seed = firstFailing(s -> baseFor(bug, s).withFaultBug(bug));
        Throwable byRun = ServerSimTest.failureOf(seed, baseFor(bug, seed).withFaultBug(bug));
        String message = String.valueOf(byRun.getMessage());
        assertTrue(java.util.Arrays.stream(witness.split("\\|")).anyMatch(message::contains),
                () -> bug + ": seed " + seed + " failed otherwise: " + byRun);
        Throwable without = ServerSimTest.failureOf(seed, baseFor(bug, seed).withNewFaults());
        assertTrue(without == null, () -> bug + ": seed " + seed + " fails without the bug too: " + without);
        System.out.printf("kill | %-40s | full run: seed %d: %s%n", bug, seed, oneLine(byRun));
    }

    static Stream<Arguments> memberBugs() {
        return Stream.of(
                Arguments.of(SimServer.MemberBug.REMOVED_LEADER_KEEPS_LEADING, "but is a voter of neither"),
                Arguments.of(SimServer.MemberBug.SNAP_FORGETS_MEMBERSHIP, "committed membership"));
    }

    /**
     * The membership bugs, in runs with membership changes ({@link ServerSimMembersTest}), break the membership
     * checks (witness: what the failure must say); the same seed passes without the bug: a leader whose removal
     * committed keeps leading (the consensus core's mutation), a SNAP install that forgets the membership its snapshot
     * records.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("memberBugs")
    void memberBugCaught(SimServer.MemberBug bug, String witness) {
        long seed = firstFailing(s -> ServerSimMembersTest.options(s, false).withMemberBug(bug));
        Throwable byRun = ServerSimTest.failureOf(seed, ServerSimMembersTest.options(seed, false).withMemberBug(bug));
        String message = String.valueOf(byRun.getMessage());
        assertTrue(message.contains(witness), () -> bug + ": seed " + seed + " failed otherwise: " + byRun);
        Throwable without = ServerSimTest.failureOf(seed, ServerSimMembersTest.options(seed, false));
        assertTrue(without == null, () -> bug + ": seed " + seed + " fails without the bug too: " + without);
        System.out.printf("kill | %-40s | full run: seed %d: %s%n", bug, seed, oneLine(byRun));
    }

    /**
     * Acknowledged setAcls and creates lost by acknowledging before fsync are caught by the ACL txn check
     * alone (among the history checks, invariants off): some seed's failure names it.
     */
    @org.junit.jupiter.api.Test
    void lostAclTxnsCaughtByTheAclTxnCheck() {
        for (long seed = 1; seed <= MAX_SEEDS; seed++) {
            Throwable t = ServerSimTest.failureOf(seed, base(seed).withAckBeforeFsync().withAcls().historyOnly());
            String m = t == null ? "" : String.valueOf(t.getMessage());
            if (m.contains("ACL txns vs the committed log")) {
                assertTrue(t instanceof ServerSim.HistoryViolation, "seed " + seed + ": " + t);
                System.out.printf("kill | %-40s | history checks: seed %d: %s%n", "ack before fsync, ACL txns", seed,
                        oneLine(new AssertionError(m.substring(m.indexOf("ACL txns vs the committed log")))));
                return;
            }
        }
        fail("no seed of " + MAX_SEEDS + " failed the ACL txn check");
    }

    /**
     * The purge bug shows through SNAP: 3 servers; the others on a standalone server (the ACL bug with ACL traffic).
     */
    private static ServerSim.Options baseFor(SimServer.FaultBug bug, long seed) {
        return bug == SimServer.FaultBug.PURGE_PAST_SNAPSHOT ? base(seed).withServers(3)
                : bug == SimServer.FaultBug.SET_ACL_REPLAY_KEEPS_AVERSION ? base(seed).withAcls()
                : bug == SimServer.FaultBug.FORGET_WRITES_ON_RESTART ? base(seed).withResend()
                : bug == SimServer.FaultBug.FORGET_WRITES_ON_SNAP ? base(seed).withServers(3).withResend()
                : base(seed);
    }

    /** A standalone server, the random runs' narrowing on (so only the switched-on bug can fail a seed). */
    private static ServerSim.Options base(long seed) {
        return ServerSim.Options.standard(seed, false).withServers(1).withoutWritesAfterReads();
    }

    private interface OptionsOf {
        ServerSim.Options of(long seed);
    }

    private static long firstFailing(OptionsOf options) {
        for (long seed = 1; seed <= MAX_SEEDS; seed++) {
            if (ServerSimTest.failureOf(seed, options.of(seed)) != null) {
                return seed;
            }
        }
        assertNotNull(null, "no seed of " + MAX_SEEDS + " failed");
        return -1;
    }

    private static String oneLine(Throwable t) {
        String s = t.getClass().getSimpleName() + ": " + String.valueOf(t.getMessage()).replace('\n', ' ');
        return s.length() > 160 ? s.substring(0, 160) + "..." : s;
    }
}
