package dev.zkr.consensus;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The membership checks see what they claim (docs/membership.md, Tests): each classic bug, re-introduced by a
 * test-only switch, is caught by its named scenario and by the random membership simulator within 500 seeds. Prints
 * one kill-table row each.
 */
class MembershipMutationsTest {
    static final int MAX_SEEDS = 500;

    static Stream<Arguments> mutations() {
        return Stream.of(
                row("reconfigBeforeEpochCommit", "Raft single-server change bug",
                        MembershipScenariosTest::raftSingleServerChangeBug),
                row("commitOnOldQuorum", "promotion on the old quorum",
                        MembershipScenariosTest::promotionNeedsTheNewQuorum),
                row("removedLeaderKeepsLeading", "remove the leader", MembershipScenariosTest::removeTheLeader));
    }

    private static Arguments row(String mutation, String scenario, Consumer<Mutations> script) {
        return Arguments.of(mutation, scenario, script);
    }

    @ParameterizedTest(name = "{0} caught by {1} and the simulator")
    @MethodSource("mutations")
    void caught(String mutation, String scenario, Consumer<Mutations> script) {
        AssertionError byScenario = assertThrows(AssertionError.class, () -> script.accept(Mutations.of(mutation)),
                scenario + " passes with " + mutation);
        long seed = 0;
        Throwable bySim = null;
        for (long s = 1; s <= MAX_SEEDS && bySim == null; s++) {
            bySim = MembershipSimulationTest.failureOf(s, Mutations.of(mutation));
            seed = s;
        }
        assertNotNull(bySim, "the simulator missed " + mutation + " in " + MAX_SEEDS + " seeds");
        System.out.printf("kill | %-26s | %-30s | %s | sim seed %d: %s%n", mutation, scenario, oneLine(byScenario),
                seed, oneLine(bySim));
    }

    private static String oneLine(Throwable t) {
        String s = String.valueOf(t.getMessage()).replace('\n', ' ');
        return s.length() > 160 ? s.substring(0, 160) + "..." : s;
    }
}
