package dev.zkr.check;

import java.util.Objects;

/** What the client learnt about an operation: it took effect, it definitely did not, or it cannot tell. */
public sealed interface Outcome {

    /** The operation took effect; {@code value} is what the reply reported ({@code null}: nothing to check). */
    record Ok(Object value) implements Outcome {
        @Override
        public String toString() {
            return value == null ? "ok" : "ok(" + value + ")";
        }
    }

    /** The operation definitely did not take effect; {@code error} names why (e.g. {@code "BadVersion"}). */
    record Failed(String error) implements Outcome {
        public Failed {
            Objects.requireNonNull(error, "error");
        }

        @Override
        public String toString() {
            return "failed(" + error + ")";
        }
    }

    /** No reply (connection loss, timeout): the operation may take effect at any point after its invocation, or never. */
    record Indeterminate() implements Outcome {
        @Override
        public String toString() {
            return "indeterminate";
        }
    }

    /** An ok outcome reporting {@code value}. */
    static Outcome ok(Object value) {
        return new Ok(value);
    }

    /** An ok outcome whose reply carries nothing to check. */
    static Outcome ok() {
        return new Ok(null);
    }

    /** A failed outcome with the given error name. */
    static Outcome failed(String error) {
        return new Failed(error);
    }

    /** The outcome of an operation without a reply. */
    static Outcome indeterminate() {
        return new Indeterminate();
    }

    /** True unless the outcome is {@link Indeterminate}. */
    default boolean completed() {
        return !(this instanceof Indeterminate);
    }
}
