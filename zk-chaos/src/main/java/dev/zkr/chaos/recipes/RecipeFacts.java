package dev.zkr.chaos.recipes;

import dev.zkr.chaos.history.Op;

import java.util.ArrayList;
import java.util.List;

/** The counts a recipe run reports beside its anomalies (pure). */
final class RecipeFacts {

    private RecipeFacts() {
    }

    /** Acquires by outcome and holds whose lease was uncertain or lost at some point. */
    static String acquires(List<Op> ops, List<Hold> holds) {
        long ok = 0;
        long timedOut = 0;
        long errors = 0;
        for (Op op : ops) {
            if (op.f().equals(Events.ACQUIRE)) {
                if (op.ok()) {
                    ok++;
                } else if (op.failed()) {
                    timedOut++;
                } else {
                    errors++;
                }
            }
        }
        long interrupted = holds.stream().filter(Hold::interrupted).count();
        return "acquires: " + ok + " held, " + timedOut + " timed out, " + errors + " failed with an error; " + interrupted
                + " holds were uncertain or lost for part of the time";
    }

    /** Leadership terms, the latch instances that led, joins. */
    static String terms(List<Op> ops, List<Hold> terms) {
        long joins = ops.stream().filter(o -> o.f().equals(Events.JOIN)).count();
        long leaders = terms.stream().map(Hold::instance).distinct().count();
        long interrupted = terms.stream().filter(Hold::interrupted).count();
        return "leadership: " + terms.size() + " terms by " + leaders + " latch instances (" + joins + " joins); "
                + interrupted + " terms were suspended or lost for part of the time";
    }

    /** Fenced writes: attempted, accepted, rejected as stale (and how many of those by a holder that thought it held). */
    static String writes(List<Op> ops) {
        long attempted = 0;
        long rejected = 0;
        long rejectedValid = 0;
        long acceptedUncertain = 0;
        for (Op op : ops) {
            if (!op.f().equals(Events.WRITE)) {
                continue;
            }
            attempted++;
            boolean valid = Events.HELD.equals(op.result());
            if (op.failed()) {
                rejected++;
                if (valid) {
                    rejectedValid++;
                }
            } else if (!valid) {
                acceptedUncertain++;
            }
        }
        return "fenced writes: " + attempted + " attempted, " + (attempted - rejected) + " accepted ("
                + acceptedUncertain + " while the writer's lease was uncertain), " + rejected
                + " rejected as stale (" + rejectedValid + " of them by a writer whose lease was valid)";
    }

    static List<String> of(String... lines) {
        return new ArrayList<>(List.of(lines));
    }
}
