package dev.zkr.chaos.recipes;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiPredicate;

/** The recipe checks over {@link Hold}s: pure. */
final class HoldChecks {

    /** At most this many anomalies of one kind are spelled out; a last line counts the rest. */
    static final int MAX_LISTED = 20;

    /** Any two holders conflict (a mutex, a leader latch). */
    static final BiPredicate<Hold, Hold> EXCLUSIVE = (a, b) -> true;
    /** A writer conflicts with every other holder; readers share. */
    static final BiPredicate<Hold, Hold> READ_WRITE = (a, b) -> a.role().equals("write") || b.role().equals("write");

    private HoldChecks() {
    }

    /**
     * Fencing tokens increase in real-time order: a lease whose acquire was invoked after another acquire
     * completed must have a larger token. Unknown tokens (-1) are skipped.
     */
    static List<String> tokensIncreaseAcrossAcquires(List<Hold> holds) {
        List<Hold> known = holds.stream().filter(h -> h.token() >= 0).toList();
        List<Hold> byCompletion = new ArrayList<>(known);
        byCompletion.sort(Comparator.comparingLong(Hold::start));
        List<Hold> byInvoke = new ArrayList<>(known);
        byInvoke.sort(Comparator.comparingLong(Hold::invoke));
        List<String> out = new ArrayList<>();
        int i = 0;
        Hold max = null;
        for (Hold y : byInvoke) {
            while (i < byCompletion.size() && byCompletion.get(i).start() < y.invoke()) {
                Hold x = byCompletion.get(i++);
                if (max == null || x.token() > max.token()) {
                    max = x;
                }
            }
            if (max != null && y.token() <= max.token()) {
                out.add("fencing token went back: " + y.describe() + " was acquired after " + max.describe()
                        + " had been, with a token not above it");
            }
        }
        return cap(out, "more tokens went back");
    }

    /**
     * Fencing tokens increase across successive leaders: no term starts with a token below one of an earlier term,
     * and an equal token only within the same latch instance (the same node, back after a reconnect).
     */
    static List<String> tokensIncreaseAcrossLeaders(List<Hold> terms) {
        List<Hold> known = new ArrayList<>(terms.stream().filter(h -> h.token() >= 0).toList());
        known.sort(Comparator.comparingLong(Hold::start));
        List<String> out = new ArrayList<>();
        Hold max = null;
        Map<Long, Hold> byToken = new HashMap<>();
        for (Hold y : known) {
            Hold same = byToken.putIfAbsent(y.token(), y);
            if (max != null && y.token() < max.token()) {
                out.add("leader fencing token went back: " + y.describe() + " after " + max.describe());
            } else if (same != null && !same.instance().equals(y.instance())) {
                out.add("two latch instances led with the same token: " + same.describe() + " and " + y.describe());
            }
            if (max == null || y.token() > max.token()) {
                max = y;
            }
        }
        return cap(out, "more leader tokens went back");
    }

    /** One pair of conflicting holders both valid at once. */
    record Overlap(Hold a, Hold b, long from, long to) {
        String describe() {
            return String.format(Locale.ROOT, "overlapping valid %s: %s and %s both valid from %.3f s to %.3f s",
                    a.role().equals("leader") ? "leaders" : "leases", a.describe(), b.describe(), from / 1e9,
                    to / 1e9);
        }
    }

    /** Every pair of conflicting holds of different workers whose valid intervals intersect. */
    static List<Overlap> overlaps(List<Hold> holds, BiPredicate<Hold, Hold> conflict) {
        record Piece(Hold hold, Hold.Interval interval) {
        }
        List<Piece> pieces = new ArrayList<>();
        for (Hold h : holds) {
            for (Hold.Interval v : h.valid()) {
                if (v.to() > v.from()) {
                    pieces.add(new Piece(h, v));
                }
            }
        }
        pieces.sort(Comparator.comparingLong(p -> p.interval().from()));
        List<Overlap> out = new ArrayList<>();
        List<Piece> active = new ArrayList<>();
        for (Piece p : pieces) {
            active.removeIf(a -> a.interval().to() <= p.interval().from());
            for (Piece a : active) {
                if (a.hold() != p.hold() && conflict.test(a.hold(), p.hold())) {
                    out.add(new Overlap(a.hold(), p.hold(), p.interval().from(),
                            Math.min(a.interval().to(), p.interval().to())));
                }
            }
            active.add(p);
        }
        return out;
    }

    static List<String> describe(List<Overlap> overlaps) {
        return cap(overlaps.stream().map(Overlap::describe).toList(), "more overlaps");
    }

    private static List<String> cap(List<String> lines, String what) {
        if (lines.size() <= MAX_LISTED) {
            return lines;
        }
        List<String> out = new ArrayList<>(lines.subList(0, MAX_LISTED));
        out.add("... and " + (lines.size() - MAX_LISTED) + " " + what);
        return out;
    }
}
