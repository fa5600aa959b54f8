package dev.zkr.check;

import java.util.List;

/**
 * The violations a log-based check found, one readable line each; none means the property holds.
 *
 * @param violations the violations, in the order found
 */
public record Findings(List<String> violations) {

    public Findings {
        violations = List.copyOf(violations);
    }

    /** True when nothing was found. */
    public boolean ok() {
        return violations.isEmpty();
    }

    /** {@link Verdict#OK} or {@link Verdict#VIOLATION}. */
    public Verdict verdict() {
        return ok() ? Verdict.OK : Verdict.VIOLATION;
    }

    /** "ok", or the number of violations and the first few. */
    public String describe() {
        if (ok()) {
            return "ok";
        }
        int shown = Math.min(10, violations.size());
        StringBuilder out = new StringBuilder(violations.size() + " violation(s)");
        violations.subList(0, shown).forEach(v -> out.append("\n  ").append(v));
        if (shown < violations.size()) {
            out.append("\n  ...");
        }
        return out.toString();
    }
}
