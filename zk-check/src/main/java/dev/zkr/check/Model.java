package dev.zkr.check;

import java.util.List;

/**
 * A sequential specification of one object (one key of a history).
 *
 * <p>States must be immutable values with {@code equals} and {@code hashCode}: the search memoises them. A step
 * depends on the op's {@code call} and {@code outcome} only, never on its client or times (put an owner into the
 * call, e.g. {@code Acquire(owner)}): the search treats indeterminate ops with equal calls as interchangeable.
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

    /**
     * True when {@code op}, completed as recorded, leaves every state in which it can take effect unchanged (a read,
     * a failure). The search then places it as soon as it can and tries nothing else there, which cuts the search a
     * lot; answering true for an op that changes some state makes the checker wrong. Default: false (always safe).
     */
    default boolean preservesState(Operation op) {
        return false;
    }
}
