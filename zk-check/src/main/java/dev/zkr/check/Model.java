package dev.zkr.check;

import java.util.List;

/**
 * A sequential specification of one object (one key of a history).
 *
 * <p>States must be immutable values with {@code equals} and {@code hashCode}: the search memoises them.
 *
 * @param <S> the object's state
 */
public interface Model<S> {

    /** The state before any operation. */
    S initial();

    /**
     * The states {@code op} can leave when it takes effect in {@code state} and its recorded outcome is what the
     * object would answer there. Empty: the operation cannot happen in that state with that outcome. A failed
     * operation that matches leaves the state unchanged. For an indeterminate outcome, return the state the
     * operation would leave (unchanged if it would fail there): the checker itself covers "never took effect".
     */
    List<S> step(S state, Operation op);
}
