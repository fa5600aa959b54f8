package dev.zkr.chaos.nemesis;

/** A fault in place: what it did, and how to undo it. */
public interface Fault {

    /** E.g. "kill -9 server 2 (leader)". */
    String describe();

    /** Ends the fault (restart, resume, heal). */
    void heal();
}
