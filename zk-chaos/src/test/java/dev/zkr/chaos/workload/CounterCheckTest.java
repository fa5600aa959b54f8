package dev.zkr.chaos.workload;

import dev.zkr.chaos.history.Op;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link CounterCheck} on hand-built histories: a valid one, and one per bug it claims to catch. */
class CounterCheckTest {

    private static Op incr(int process, long invoke, long complete, Op.Status status, Long value) {
        return new Op(process, "incr", "/c", "1", invoke, complete, status, value == null ? null : value.toString(),
                status == Op.Status.OK ? null : "ConnectionLoss");
    }

    private static Map<Integer, Long> finals(long... values) {
        Map<Integer, Long> m = new LinkedHashMap<>();
        for (int i = 0; i < values.length; i++) {
            m.put(i + 1, values[i]);
        }
        return m;
    }

    /** 1 then 2 in sequence; 3 and 4 concurrent (either order); an indeterminate one; a failed one. */
    private static List<Op> valid() {
        return new ArrayList<>(List.of(incr(0, 0, 10, Op.Status.OK, 1L), incr(1, 11, 20, Op.Status.OK, 2L),
                incr(0, 21, 40, Op.Status.OK, 4L), incr(1, 22, 30, Op.Status.OK, 3L),
                incr(2, 25, 50, Op.Status.INFO, null), incr(2, 51, 52, Op.Status.FAIL, null)));
    }

    @Test
    void validHistory() {
        assertEquals(List.of(), CounterCheck.check("counter", valid(), finals(4, 4, 4)).anomalies());
        assertEquals(List.of(), CounterCheck.check("counter", valid(), finals(5, 5, 5)).anomalies());
    }

    @Test
    void acknowledgedIncrementLost() {
        List<String> a = CounterCheck.check("counter", valid(), finals(3, 3, 3)).anomalies();
        assertEquals(3, a.size(), a::toString);
        assertTrue(a.get(0).contains("below the 4 acknowledged"), a::toString);
    }

    @Test
    void incrementAppliedTwice() {
        List<String> a = CounterCheck.check("counter", valid(), finals(6, 6, 6)).anomalies();
        assertEquals(3, a.size(), a::toString);
        assertTrue(a.get(0).contains("above the 4 acknowledged + 1 indeterminate"), a::toString);
    }

    @Test
    void serversDisagree() {
        List<String> a = CounterCheck.check("counter", valid(), finals(4, 5, 4)).anomalies();
        assertTrue(a.stream().anyMatch(s -> s.contains("servers disagree")), a::toString);
    }

    @Test
    void valueReturnedTwice() {
        List<Op> ops = valid();
        ops.add(incr(3, 60, 70, Op.Status.OK, 3L));
        List<String> a = CounterCheck.check("counter", ops, finals(5, 5, 5)).anomalies();
        assertTrue(a.stream().anyMatch(s -> s.contains("value 3 returned twice")), a::toString);
    }

    @Test
    void valueGoingBackInRealTime() {
        List<Op> ops = List.of(incr(0, 0, 10, Op.Status.OK, 2L), incr(1, 11, 20, Op.Status.OK, 1L));
        List<String> a = CounterCheck.check("counter", ops, finals(2, 2, 2)).anomalies();
        assertEquals(1, a.size(), a::toString);
        assertTrue(a.get(0).contains("returned 1 after an earlier completed one returned 2"), a::toString);
    }
}
