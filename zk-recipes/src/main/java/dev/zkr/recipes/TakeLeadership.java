package dev.zkr.recipes;

/**
 * The work a {@link LeaderSelector} does while it leads: called on the selector's own thread each time this
 * participant becomes leader; leadership is given up when it returns (or throws). The thread is interrupted when
 * leadership is lost (session expired, connection suspended past the selector's bound, close,
 * {@link LeaderSelector#interruptLeadership()}); from then on {@link Leadership#isValid()} is false and
 * {@link Leadership#fencingToken()} is -1, so the work must stop and must not write with the token any more.
 */
@FunctionalInterface
public interface TakeLeadership {

    /** Leads until this returns; an {@link InterruptedException} (or any exception) ends it like a return. */
    void takeLeadership(Leadership leadership) throws Exception;
}
