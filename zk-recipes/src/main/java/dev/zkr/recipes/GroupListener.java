package dev.zkr.recipes;

/**
 * Receives changes of a {@link GroupMembership}'s live view, in order. A member that crashes is reported as left
 * once its session expires (its ephemeral node goes); a graceful leave is reported at once.
 */
public interface GroupListener {

    /** A member appeared in the view (including members present when the view was first read). */
    default void memberJoined(Member member) {
    }

    /** A member left the view: it left, or it died and its session expired. */
    default void memberLeft(Member member) {
    }

    /**
     * This participant's own membership changed: {@link LeaseState#UNCERTAIN} while the connection is suspended,
     * {@link LeaseState#HELD} when it is sure again (also after rejoining), {@link LeaseState#LOST} when its
     * session expired, {@link LeaseState#RELEASED} when closed.
     */
    default void selfChanged(LeaseState state) {
    }
}
