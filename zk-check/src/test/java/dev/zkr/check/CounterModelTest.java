package dev.zkr.check;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The checker with another, nondeterministic model: a counter whose {@code bump} adds 1 or 2 without saying which. */
class CounterModelTest {

    record Bump() implements Call {
    }

    record Get() implements Call {
    }

    static final class Counter implements Model<Integer> {
        @Override
        public Integer initial() {
            return 0;
        }

        @Override
        public List<Integer> step(Integer state, Operation op) {
            if (op.call() instanceof Bump) {
                return List.of(state + 1, state + 2);
            }
            Object value = ((Outcome.Ok) op.outcome()).value();
            return value.equals(state) ? List.of(state) : List.of();
        }

        @Override
        public boolean preservesState(Operation op) {
            return op.call() instanceof Get;
        }
    }

    private static Verdict check(Operation... ops) {
        return new LinearizabilityChecker<>(new Counter()).check(List.of(ops)).verdict();
    }

    private static Operation bump(long from, long to) {
        return new Operation(1, from, to, "c", new Bump(), Outcome.ok());
    }

    private static Operation get(long from, long to, int value) {
        return new Operation(2, from, to, "c", new Get(), Outcome.ok(value));
    }

    @Test
    void everyStateTheBumpsCanReachIsAllowed() {
        assertEquals(Verdict.OK, check(bump(0, 1), bump(2, 3), get(4, 5, 3)));
        assertEquals(Verdict.OK, check(bump(0, 1), bump(2, 3), get(4, 5, 4)));
        assertEquals(Verdict.OK, check(bump(0, 10), get(1, 2, 0), get(3, 4, 2), get(5, 6, 2)));
    }

    @Test
    void aReadPossibleInOnlySomeOfTheStatesIsNotPlacedEagerly() {
        // after the first bump the counter is 1 or 2; get→2 is possible but must wait: get→1, a bump, then get→2
        assertEquals(Verdict.OK, check(bump(0, 1), get(2, 100, 2), get(3, 4, 1), bump(5, 6)));
    }

    @Test
    void aStateNoOrderOfBumpsReachesIsAViolation() {
        assertEquals(Verdict.VIOLATION, check(bump(0, 1), bump(2, 3), get(4, 5, 1)));
        assertEquals(Verdict.VIOLATION, check(bump(0, 10), get(1, 2, 2), get(3, 4, 0)));
    }

    record Assign(int value) implements Call {
    }

    /** A register without versions: assigning the value it already holds changes nothing there, but not elsewhere. */
    static final class PlainRegister implements Model<Integer> {
        @Override
        public Integer initial() {
            return 5;
        }

        @Override
        public List<Integer> step(Integer state, Operation op) {
            if (op.call() instanceof Assign assign) {
                return List.of(assign.value());
            }
            Object value = ((Outcome.Ok) op.outcome()).value();
            return value.equals(state) ? List.of(state) : List.of();
        }
    }

    @Test
    void anOpThatIsANoOpOnlyInSomeStatesIsNotPlacedEagerly() {
        // assign(5) is a no-op in the initial state, but it must go after assign(3) and the read of 3
        List<Operation> history = List.of(
                new Operation(1, 0, 100, "r", new Assign(5), Outcome.ok()),
                new Operation(2, 1, 2, "r", new Assign(3), Outcome.ok()),
                new Operation(2, 3, 4, "r", new Get(), Outcome.ok(3)),
                new Operation(2, 5, 6, "r", new Get(), Outcome.ok(5)));
        assertEquals(Verdict.OK, new LinearizabilityChecker<>(new PlainRegister()).check(history).verdict());
    }
}
