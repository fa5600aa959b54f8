package dev.zkr.chaos.recipes;

import dev.zkr.chaos.history.Op;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The client nemesis's pick: the worker of the latest hold still open in the history. */
class HoldersTest {

    private static Op op(int process, String f, String key, Op.Status status) {
        return new Op(process, f, key, null, 0, 0, status, null, null);
    }

    @Test
    void theLatestOpenHoldWins() {
        assertEquals(-1, Holders.latest(List.of()));
        List<Op> ops = List.of(
                op(0, Events.ACQUIRE, "0-1", Op.Status.OK),
                op(1, Events.ACQUIRE, "1-1", Op.Status.FAIL), // timed out: holds nothing
                op(2, Events.ACQUIRE, "2-1", Op.Status.OK),
                op(2, Events.RELEASE, "2-1", Op.Status.OK));
        assertEquals(0, Holders.latest(ops), "worker 2 released; worker 0 still holds");
        assertEquals(-1, Holders.latest(List.of(op(0, Events.ACQUIRE, "0-1", Op.Status.OK),
                op(0, Events.RELEASE, "0-1", Op.Status.INFO))));
    }

    @Test
    void latchTermsEndByRevocationOrResignation() {
        List<Op> ops = List.of(
                op(3, Events.ELECTED, "3-1", Op.Status.OK),
                op(3, Events.REVOKED, "3-1", Op.Status.OK),
                op(4, Events.ELECTED, "4-1", Op.Status.OK));
        assertEquals(4, Holders.latest(ops));
        assertEquals(-1, Holders.latest(List.of(op(4, Events.ELECTED, "4-1", Op.Status.OK),
                op(4, Events.RESIGN, "4-1", Op.Status.OK))));
    }
}
