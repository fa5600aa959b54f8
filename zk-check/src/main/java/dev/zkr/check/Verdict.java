package dev.zkr.check;

/** The answer of a check. */
public enum Verdict {
    /** The history satisfies the property. */
    OK,
    /** The history violates it; the report says where. */
    VIOLATION,
    /** The search ran out of budget before deciding: neither ok nor a violation. */
    UNKNOWN
}
