package dev.zkr.check;

import static dev.zkr.check.Histories.check;
import static dev.zkr.check.Histories.create;
import static dev.zkr.check.Histories.delete;
import static dev.zkr.check.Histories.failed;
import static dev.zkr.check.Histories.ok;
import static dev.zkr.check.Histories.okAbsent;
import static dev.zkr.check.Histories.read;
import static dev.zkr.check.Histories.set;
import static dev.zkr.check.ZnodeModel.BAD_VERSION;
import static dev.zkr.check.ZnodeModel.NODE_EXISTS;
import static dev.zkr.check.ZnodeModel.NO_NODE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class ZnodeModelTest {

    private static final Znode A0 = Znode.present("a", 0);
    private static final Znode A3 = Znode.present("a", 3);

    private final ZnodeModel model = new ZnodeModel();

    private List<Znode> step(Znode state, ZnodeCall call, Outcome outcome) {
        return model.step(state, new Operation(1, 0, 1, "/n", call, outcome));
    }

    @Test
    void createSucceedsOnlyOnAnAbsentNode() {
        assertEquals(List.of(A0), step(Znode.ABSENT, create("a"), ok("a", 0)));
        assertEquals(List.of(A0), step(Znode.ABSENT, create("a"), ok()));
        assertEquals(List.of(), step(A3, create("a"), ok()));
        assertEquals(List.of(A3), step(A3, create("b"), failed(NODE_EXISTS)));
        assertEquals(List.of(), step(Znode.ABSENT, create("b"), failed(NODE_EXISTS)));
    }

    @Test
    void setDataBumpsTheVersionWhenTheExpectedVersionMatches() {
        Znode b4 = Znode.present("b", 4);
        assertEquals(List.of(b4), step(A3, set("b", 3), ok("b", 4)));
        assertEquals(List.of(b4), step(A3, set("b", -1), ok()));
        assertEquals(List.of(), step(A3, set("b", -1), ok("b", 5)));
        assertEquals(List.of(), step(A3, set("b", 2), ok()));
        assertEquals(List.of(A3), step(A3, set("b", 2), failed(BAD_VERSION)));
        assertEquals(List.of(), step(A3, set("b", 3), failed(BAD_VERSION)));
        assertEquals(List.of(Znode.ABSENT), step(Znode.ABSENT, set("b", -1), failed(NO_NODE)));
        assertEquals(List.of(), step(A3, set("b", -1), failed(NO_NODE)));
    }

    @Test
    void deleteAndCheckHonourTheExpectedVersion() {
        assertEquals(List.of(Znode.ABSENT), step(A3, delete(3), ok()));
        assertEquals(List.of(A3), step(A3, delete(1), failed(BAD_VERSION)));
        assertEquals(List.of(), step(Znode.ABSENT, delete(-1), ok()));
        assertEquals(List.of(A3), step(A3, check(3), ok()));
        assertEquals(List.of(), step(A3, check(2), ok()));
        assertEquals(List.of(Znode.ABSENT), step(Znode.ABSENT, check(0), failed(NO_NODE)));
    }

    @Test
    void aReadMustReturnTheWholeNodeOrAbsent() {
        assertEquals(List.of(A3), step(A3, read(), ok("a", 3)));
        assertEquals(List.of(), step(A3, read(), ok("a", 2)));
        assertEquals(List.of(Znode.ABSENT), step(Znode.ABSENT, read(), okAbsent()));
        assertEquals(List.of(Znode.ABSENT), step(Znode.ABSENT, read(), failed(NO_NODE)));
        assertEquals(List.of(), step(A3, read(), failed(NO_NODE)));
    }

    @Test
    void anIndeterminateOpLeavesWhatItWouldDo() {
        assertEquals(List.of(A0), step(Znode.ABSENT, create("a"), Outcome.indeterminate()));
        assertEquals(List.of(A3), step(A3, create("b"), Outcome.indeterminate()));
        assertEquals(List.of(A3), step(A3, set("b", 1), Outcome.indeterminate()));
        assertEquals(List.of(Znode.ABSENT), step(A3, delete(-1), Outcome.indeterminate()));
    }

    @Test
    void anErrorOutsideTheRegisterChangesNothingAndConstrainsNothing() {
        assertEquals(List.of(Znode.ABSENT), step(Znode.ABSENT, create("a"), failed("NoNode")));
        assertEquals(List.of(A3), step(A3, set("b", -1), failed("ConnectionLoss")));
    }

    @Test
    void aCallOfAnotherModelIsRefused() {
        Call foreign = new Call() {
        };
        assertThrows(IllegalArgumentException.class,
                () -> model.step(A3, new Operation(1, 0, 1, "/n", foreign, Outcome.ok())));
    }
}
