package dev.zkr.check;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Wing and Gong's linearizability search over one key's operations, with Lowe's memoisation of
 * (linearised set, model states): the algorithm of Porcupine and Knossos.
 *
 * <p>The candidates at each point are the calls before the first return event; a call may be linearised when the
 * model accepts it in the current states. Completed calls are tried before indeterminate ones (the same choices in
 * a better order: an indeterminate op is placed only where no completed op goes on). When no candidate is left, the
 * last placed op is taken back. Reaching the end of the list means every completed operation is placed
 * (indeterminate ones left over never took effect). States are sets, so a nondeterministic model is searched as its
 * powerset. One search runs once; it is not thread-safe.
 */
final class WingGongSearch<S> {

    private record Frame<S>(EntryList.Entry entry, Set<S> before) {
    }

    private final Model<S> model;
    private final List<Operation> ops;
    private final long budget;
    private final long[] linearised;
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
    }

    PartitionResult run(String key) {
        Set<S> states = Set.of(model.initial());
        longestEnd = states;
        EntryList list = new EntryList(ops);
        EntryList.Entry entry = list.head.next;
        boolean indeterminatePass = false;
        while (true) {
            if (++steps > budget) {
                return new PartitionResult(key, Verdict.UNKNOWN, ops.size(), steps - 1, null);
            }
            if (entry != null && entry.call) {
                Set<S> next = ops.get(entry.op).completed() == indeterminatePass ? null : placeable(states, entry.op);
                if (next != null) {
                    stack.add(new Frame<>(entry, states));
                    states = next;
                    EntryList.lift(entry);
                    noteLongest(states);
                    entry = list.head.next;
                    indeterminatePass = false;
                } else {
                    entry = entry.next;
                }
            } else if (!indeterminatePass) {
                if (entry == null) {
                    return new PartitionResult(key, Verdict.OK, ops.size(), steps, null);
                }
                indeterminatePass = true;
                entry = list.head.next;
            } else {
                if (stack.isEmpty()) {
                    return new PartitionResult(key, Verdict.VIOLATION, ops.size(), steps, explain());
                }
                Frame<S> top = stack.remove(stack.size() - 1);
                longestShared = Math.min(longestShared, stack.size());
                flip(top.entry().op);
                states = top.before();
                EntryList.unlift(top.entry());
                entry = top.entry().next;
                indeterminatePass = !ops.get(top.entry().op).completed();
            }
        }
    }

    /** The states after linearising op now, or null if it cannot be, or leads to a configuration already explored. */
    private Set<S> placeable(Set<S> states, int op) {
        Set<S> next = successors(states, ops.get(op));
        if (next.isEmpty() || (!ops.get(op).completed() && next.equals(states))) {
            return null; // impossible, or an indeterminate op without effect: the same as leaving it out
        }
        flip(op);
        if (cache.add(linearised, next)) {
            return next;
        }
        flip(op);
        return null;
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
