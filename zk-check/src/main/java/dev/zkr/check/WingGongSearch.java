package dev.zkr.check;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Wing and Gong's linearizability search over one key's operations, with Lowe's memoisation of
 * (linearised set, model states): the algorithm of Porcupine and Knossos.
 *
 * <p>The candidates at each point are the calls before the first return event; a call may be linearised when the
 * model accepts it in the current states. A completed op that never changes a state ({@link Model#preservesState}:
 * a read, a failure) is placed at once and alone: any linearisation that places it later stays valid with it moved
 * here. Then completed ops that change the states are tried, then indeterminate ones. When no candidate is left,
 * the last placed op is taken back. Reaching the end of the list means every completed operation is placed
 * (indeterminate ones left over never took effect). States are sets, so a nondeterministic model is searched as
 * its powerset. One search runs once; it is not thread-safe.
 */
final class WingGongSearch<S> {

    /** The order candidates are tried in at one point of the search. */
    private enum Pass {
        /**
         * A completed op the model says never changes a state, placeable in every current state: placing it now
         * loses nothing (a linearisation placing it later stays valid with it moved here), so it is the only try.
         */
        FORCED,
        /** A completed op that changes the states. */
        COMPLETED,
        /** An indeterminate op that changes the states (one without effect is the same as leaving it out). */
        INDETERMINATE
    }

    private record Frame<S>(EntryList.Entry entry, Set<S> before, Pass pass) {
    }

    private final Model<S> model;
    private final List<Operation> ops;
    private final long budget;
    private final long[] linearised;
    private final int[] earlierTwin;
    private final SearchCache<S> cache = new SearchCache<>();
    private final List<Frame<S>> stack = new ArrayList<>();
    private final List<Frame<S>> longest = new ArrayList<>();
    private int longestShared; // how many bottom frames of the stack are still those of longest
    private Set<S> longestEnd;
    private long steps;

    WingGongSearch(Model<S> model, List<Operation> ops, long budget) {
        this.model = model;
        this.ops = ops;
        this.budget = budget;
        this.linearised = new long[(ops.size() + 63) / 64];
        this.earlierTwin = earlierTwins(ops);
    }

    /**
     * For each indeterminate op, the latest earlier-invoked indeterminate op with the same call (-1 if none). Such
     * twins are interchangeable, and the earlier one may go wherever the later one may, so twins are placed in
     * invocation order only: a retried write lost k times costs k+1 configurations instead of 2^k.
     */
    private static int[] earlierTwins(List<Operation> ops) {
        Integer[] byInvoke = new Integer[ops.size()];
        for (int i = 0; i < byInvoke.length; i++) {
            byInvoke[i] = i;
        }
        Arrays.sort(byInvoke, Comparator.comparingLong(i -> ops.get(i).invoke()));
        int[] twin = new int[ops.size()];
        Map<Call, Integer> latest = new HashMap<>();
        for (int i : byInvoke) {
            twin[i] = -1;
            if (!ops.get(i).completed()) {
                Integer before = latest.put(ops.get(i).call(), i);
                twin[i] = before == null ? -1 : before;
            }
        }
        return twin;
    }

    private boolean twinWaiting(int op) {
        int twin = earlierTwin[op];
        return twin >= 0 && (linearised[twin >>> 6] & (1L << twin)) == 0;
    }

    PartitionResult run(String key) {
        Set<S> states = Set.of(model.initial());
        longestEnd = states;
        EntryList list = new EntryList(ops);
        EntryList.Entry entry = list.head.next;
        Pass pass = Pass.FORCED;
        boolean exhausted = false;
        while (true) {
            if (++steps > budget) {
                return new PartitionResult(key, Verdict.UNKNOWN, ops.size(), steps - 1, null);
            }
            if (exhausted) {
                if (stack.isEmpty()) {
                    return new PartitionResult(key, Verdict.VIOLATION, ops.size(), steps, explain());
                }
                Frame<S> top = stack.remove(stack.size() - 1);
                longestShared = Math.min(longestShared, stack.size());
                flip(top.entry().op);
                states = top.before();
                EntryList.unlift(top.entry());
                exhausted = top.pass() == Pass.FORCED;
                entry = top.entry().next;
                pass = top.pass();
            } else if (entry != null && entry.call) {
                Operation op = ops.get(entry.op);
                boolean tried = op.completed() == (pass != Pass.INDETERMINATE) && !twinWaiting(entry.op);
                Set<S> next = tried ? successors(states, op) : Set.of();
                if (next.isEmpty() || passOf(op, states, next) != pass) {
                    entry = entry.next;
                    continue;
                }
                flip(entry.op);
                if (!cache.add(linearised, next)) {
                    flip(entry.op);
                    exhausted = pass == Pass.FORCED; // that configuration failed, so does this one
                    entry = entry.next;
                    continue;
                }
                stack.add(new Frame<>(entry, states, pass));
                states = next;
                EntryList.lift(entry);
                noteLongest(states);
                entry = list.head.next;
                pass = Pass.FORCED;
            } else if (pass != Pass.INDETERMINATE) {
                if (entry == null) {
                    return new PartitionResult(key, Verdict.OK, ops.size(), steps, null);
                }
                pass = pass == Pass.FORCED ? Pass.COMPLETED : Pass.INDETERMINATE;
                entry = list.head.next;
            } else {
                exhausted = true;
            }
        }
    }

    /** The pass that tries op, placeable with states becoming next; null if no pass does. */
    private Pass passOf(Operation op, Set<S> states, Set<S> next) {
        boolean same = next.equals(states);
        if (!op.completed()) {
            return same ? null : Pass.INDETERMINATE;
        }
        return same && model.preservesState(op) ? Pass.FORCED : Pass.COMPLETED;
    }

    private Set<S> successors(Set<S> states, Operation op) {
        if (states.size() == 1) {
            List<S> next = model.step(states.iterator().next(), op);
            return next.size() == 1 ? Set.of(next.get(0)) : Set.copyOf(next);
        }
        Set<S> next = new HashSet<>();
        for (S s : states) {
            next.addAll(model.step(s, op));
        }
        return Set.copyOf(next);
    }

    private void flip(int op) {
        linearised[op >>> 6] ^= 1L << op;
    }

    /** Keeps a copy of the deepest stack; copies only the frames above the part still shared (amortised O(1)). */
    private void noteLongest(Set<S> states) {
        if (stack.size() > longest.size()) {
            longest.subList(longestShared, longest.size()).clear();
            longest.addAll(stack.subList(longestShared, stack.size()));
            longestShared = stack.size();
            longestEnd = states;
        }
    }

    private Explanation explain() {
        List<Explanation.Step> steps = new ArrayList<>();
        BitSet placed = new BitSet(ops.size());
        for (int i = 0; i < longest.size(); i++) {
            Set<S> after = i + 1 < longest.size() ? longest.get(i + 1).before() : longestEnd;
            int op = longest.get(i).entry().op;
            placed.set(op);
            steps.add(new Explanation.Step(ops.get(op), after));
        }
        long due = Long.MAX_VALUE;
        for (int i = 0; i < ops.size(); i++) {
            if (!placed.get(i) && ops.get(i).completed()) {
                due = Math.min(due, ops.get(i).response());
            }
        }
        List<Explanation.Blocked> blocked = new ArrayList<>();
        for (int i = 0; i < ops.size(); i++) {
            Operation op = ops.get(i);
            if (!placed.get(i) && op.completed() && op.invoke() <= due) {
                blocked.add(new Explanation.Blocked(op, reason(op)));
            }
        }
        blocked.sort(Comparator.comparingLong(b -> b.op().invoke()));
        return new Explanation(steps, longestEnd, blocked);
    }

    private String reason(Operation op) {
        Set<S> next = successors(longestEnd, op);
        if (next.isEmpty()) {
            return "impossible in this state";
        }
        return "possible here (⇒ " + Explanation.states(next) + ") but no order of the rest follows";
    }
}
