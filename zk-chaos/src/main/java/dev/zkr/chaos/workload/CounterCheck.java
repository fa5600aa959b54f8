package dev.zkr.chaos.workload;

import dev.zkr.chaos.history.Op;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The counter checks, pure: {@code incr} operations by one each (OK with the returned value when the recipe returns
 * one, FAIL: not applied, INFO: may or may not have been applied) and the final value read on every server after
 * healing. Every server must read the same value {@code v} with {@code ok ≤ v ≤ ok + indeterminate}; returned values
 * must be unique and increase in real-time order (an increment that completed before another began returned less).
 */
final class CounterCheck {

    record Outcome(List<String> anomalies, List<String> facts) {
    }

    private CounterCheck() {
    }

    /** {@code finals}: server id to the value read there. */
    static Outcome check(String name, List<Op> ops, Map<Integer, Long> finals) {
        List<Op> incrs = ops.stream().filter(o -> o.f().equals("incr")).toList();
        long ok = incrs.stream().filter(Op::ok).count();
        long info = incrs.stream().filter(Op::indeterminate).count();
        long failed = incrs.stream().filter(Op::failed).count();
        List<String> anomalies = new ArrayList<>();
        Long first = null;
        for (Map.Entry<Integer, Long> e : finals.entrySet()) {
            long v = e.getValue();
            if (first == null) {
                first = v;
            } else if (first != v) {
                anomalies.add(name + ": servers disagree on the final value: " + finals);
            }
            if (v < ok) {
                anomalies.add(name + ": final value " + v + " on server " + e.getKey() + " is below the " + ok
                        + " acknowledged increments (an acknowledged increment lost)");
            } else if (v > ok + info) {
                anomalies.add(name + ": final value " + v + " on server " + e.getKey() + " is above the " + ok
                        + " acknowledged + " + info + " indeterminate increments (an increment applied twice, or "
                        + "one reported failed was applied)");
            }
        }
        List<Op> valued = incrs.stream().filter(o -> o.ok() && o.result() != null).toList();
        Map<Long, Op> byValue = new HashMap<>();
        for (Op op : valued) {
            Op other = byValue.putIfAbsent(Long.parseLong(op.result()), op);
            if (other != null) {
                anomalies.add(name + ": value " + op.result() + " returned twice: " + other + " and " + op);
            }
        }
        // real-time order: sweep the invocations, keeping the largest value of the increments completed before
        List<Op> byInvoke = valued.stream().sorted(Comparator.comparingLong(Op::invoke)).toList();
        List<Op> byComplete = valued.stream().sorted(Comparator.comparingLong(Op::complete)).toList();
        int c = 0;
        Op largest = null;
        for (Op op : byInvoke) {
            while (c < byComplete.size() && byComplete.get(c).complete() < op.invoke()) {
                Op done = byComplete.get(c++);
                if (largest == null || value(done) > value(largest)) {
                    largest = done;
                }
            }
            if (largest != null && value(largest) >= value(op)) {
                anomalies.add(name + ": increment returned " + op.result() + " after an earlier completed one "
                        + "returned " + largest.result() + ": " + largest + " then " + op);
            }
        }
        List<String> facts = List.of(String.format("%s: increments %d ok, %d failed, %d indeterminate; final value %s",
                name, ok, failed, info, finals.isEmpty() ? "unread" : String.valueOf(first)));
        return new Outcome(anomalies, facts);
    }

    private static long value(Op op) {
        return Long.parseLong(op.result());
    }
}
