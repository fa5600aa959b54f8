package dev.zkr.check;

/**
 * The linearizability verdict for the operations on one key.
 *
 * @param key         the key
 * @param verdict     ok, violation, or unknown (budget exceeded)
 * @param operations  how many operations the key has
 * @param steps       search steps spent
 * @param explanation why it is not linearizable; {@code null} unless the verdict is {@link Verdict#VIOLATION}
 */
public record PartitionResult(String key, Verdict verdict, int operations, long steps, Explanation explanation) {

    /** One line, plus the explanation of a violation. */
    public String describe() {
        String line = key + ": " + verdict + " (" + operations + " ops, " + steps + " steps)";
        return explanation == null ? line : line + "\n" + explanation.describe();
    }
}
