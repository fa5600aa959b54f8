package dev.zkr.chaos.recipes;

import dev.zkr.chaos.history.Op;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds {@link Hold}s from a recipe workload's history ({@link Events} records): pure, for the checks and their
 * unit tests.
 *
 * <p>Validity: a hold is valid from its start unless, at that moment, its worker's connection is suspended (the
 * last connection state before it is {@code SUSPENDED}, {@code LOST} or {@code READ_ONLY}); it stops being valid at
 * {@code SUSPENDED} (until {@code RECONNECTED}) and for good at {@code LOST} or a {@code CONNECTED} (a new session),
 * and, by the recipe's own report ({@code hold-state}), while {@code UNCERTAIN} (until {@code HELD}) and for good
 * at {@code LOST} or {@code RELEASED}.
 */
final class Holds {

    private Holds() {
    }

    /** Lock holds: one per acquire that returned a lease. */
    static List<Hold> fromLocks(List<Op> ops) {
        long horizon = horizon(ops);
        Map<String, Op> releases = new HashMap<>();
        Map<String, List<Op>> states = new HashMap<>();
        Map<Integer, List<Op>> conns = connections(ops);
        for (Op op : ops) {
            switch (op.f()) {
                case Events.RELEASE -> releases.putIfAbsent(op.key(), op);
                case Events.HOLD_STATE -> states.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op);
                default -> {
                }
            }
        }
        List<Hold> holds = new ArrayList<>();
        for (Op a : ops) {
            if (!a.f().equals(Events.ACQUIRE) || !a.ok()) {
                continue;
            }
            Op release = releases.get(a.key());
            long end = Math.max(a.complete(), release == null ? horizon : release.invoke());
            List<StateChange> events = new ArrayList<>();
            for (Op s : states.getOrDefault(a.key(), List.of())) {
                events.add(new StateChange(s.invoke(), false, s.arg()));
            }
            holds.add(new Hold(a.key(), a.key(), a.process(), a.arg(), token(a.result()), a.invoke(), a.complete(),
                    end, valid(a.complete(), end, events, conns.getOrDefault(a.process(), List.of()))));
        }
        holds.sort(Comparator.comparingLong(Hold::start));
        return holds;
    }

    /**
     * Leadership terms: per latch instance ({@code join} key), from each {@code elected} to the next {@code revoked}
     * or the instance's {@code resign} invocation; an elected reported after the resign starts no term.
     */
    static List<Hold> fromLatches(List<Op> ops) {
        long horizon = horizon(ops);
        Map<Integer, List<Op>> conns = connections(ops);
        Map<String, List<Op>> byInstance = new HashMap<>();
        for (Op op : ops) {
            if (op.f().equals(Events.ELECTED) || op.f().equals(Events.REVOKED) || op.f().equals(Events.RESIGN)) {
                byInstance.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op);
            }
        }
        List<Hold> holds = new ArrayList<>();
        for (Map.Entry<String, List<Op>> e : byInstance.entrySet()) {
            List<Op> list = e.getValue();
            list.sort(Comparator.comparingLong(Op::invoke));
            long resign = list.stream().filter(o -> o.f().equals(Events.RESIGN)).mapToLong(Op::invoke).min()
                    .orElse(horizon);
            Op elected = null;
            int term = 0;
            for (Op op : list) {
                if (op.invoke() >= resign) {
                    break;
                }
                if (op.f().equals(Events.ELECTED) && elected == null) {
                    elected = op;
                } else if (op.f().equals(Events.REVOKED) && elected != null) {
                    holds.add(term(e.getKey(), term++, elected, op.invoke(), conns));
                    elected = null;
                }
            }
            if (elected != null) {
                holds.add(term(e.getKey(), term, elected, resign, conns));
            }
        }
        holds.sort(Comparator.comparingLong(Hold::start));
        return holds;
    }

    private static Hold term(String instance, int term, Op elected, long end, Map<Integer, List<Op>> conns) {
        long start = elected.invoke();
        return new Hold(instance + "#" + term, instance, elected.process(), "leader", token(elected.result()), start,
                start, end, valid(start, end, List.of(), conns.getOrDefault(elected.process(), List.of())));
    }

    /** A state change at {@code time}: from the connection ({@code conn}) or the recipe. */
    private record StateChange(long time, boolean conn, String state) {
    }

    static List<Hold.Interval> valid(long start, long end, List<StateChange> recipeStates, List<Op> connStates) {
        boolean connOk = true;
        List<StateChange> events = new ArrayList<>(recipeStates);
        for (Op c : connStates) {
            if (c.invoke() <= start) {
                connOk = c.arg().equals("CONNECTED") || c.arg().equals("RECONNECTED");
            } else if (c.invoke() < end) {
                events.add(new StateChange(c.invoke(), true, c.arg()));
            }
        }
        events.sort(Comparator.comparingLong(StateChange::time));
        boolean recipeOk = true;
        boolean gone = false;
        List<Hold.Interval> out = new ArrayList<>();
        long from = start;
        boolean ok = connOk;
        for (StateChange ev : events) {
            if (ev.time() >= end) {
                break;
            }
            if (ev.conn()) {
                switch (ev.state()) {
                    case "SUSPENDED", "READ_ONLY" -> connOk = false;
                    case "RECONNECTED" -> connOk = true;
                    default -> gone = true; // LOST, or CONNECTED: a new session
                }
            } else {
                switch (ev.state()) {
                    case "HELD" -> recipeOk = true;
                    case "UNCERTAIN" -> recipeOk = false;
                    default -> gone = true; // LOST, RELEASED
                }
            }
            long t = Math.max(ev.time(), start);
            boolean now = connOk && recipeOk && !gone;
            if (ok && !now) {
                if (t > from) {
                    out.add(new Hold.Interval(from, t));
                }
            } else if (!ok && now) {
                from = t;
            }
            ok = now;
        }
        if (ok && end > from) {
            out.add(new Hold.Interval(from, end));
        }
        return out;
    }

    private static Map<Integer, List<Op>> connections(List<Op> ops) {
        Map<Integer, List<Op>> conns = new HashMap<>();
        for (Op op : ops) {
            if (op.f().equals(Events.CONN_STATE)) {
                conns.computeIfAbsent(op.process(), k -> new ArrayList<>()).add(op);
            }
        }
        for (List<Op> l : conns.values()) {
            l.sort(Comparator.comparingLong(Op::invoke));
        }
        return conns;
    }

    private static long horizon(List<Op> ops) {
        return ops.stream().mapToLong(Op::complete).max().orElse(0);
    }

    static long token(String result) {
        if (result == null) {
            return -1;
        }
        try {
            return Long.parseLong(result);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
