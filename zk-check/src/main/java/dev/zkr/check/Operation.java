package dev.zkr.check;

import java.util.Objects;

/**
 * One operation of a history.
 *
 * @param client   the client (process, session) that issued it; used in reports only
 * @param invoke   logical time the request was sent
 * @param response logical time the reply arrived; ignored (taken as +infinity) when the outcome is indeterminate
 * @param key      the independent object it acts on (a znode path): histories are checked key by key
 * @param call     kind and arguments
 * @param outcome  what the reply said
 */
public record Operation(long client, long invoke, long response, String key, Call call, Outcome outcome) {

    public Operation {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(call, "call");
        Objects.requireNonNull(outcome, "outcome");
        if (outcome.completed() && response < invoke) {
            throw new IllegalArgumentException("response " + response + " before invocation " + invoke);
        }
    }

    /** True when the client got a reply (ok or failed). */
    public boolean completed() {
        return outcome.completed();
    }

    /** True when this operation returned before {@code other} was invoked (real-time order). */
    public boolean precedes(Operation other) {
        return completed() && response < other.invoke;
    }

    @Override
    public String toString() {
        String end = completed() ? Long.toString(response) : "∞";
        return "c" + client + " " + key + " " + call + " → " + outcome + " [" + invoke + ", " + end + "]";
    }
}
