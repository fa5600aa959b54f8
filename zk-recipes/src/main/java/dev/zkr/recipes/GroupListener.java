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
     * A member's data changed (its node's data was set; {@link GroupMembership#setData} of that member). A member
     * whose node was made again is reported as left and joined instead.
     */
    default void memberChanged(Member member) {
    }

    /**
     * This participant's own membership changed: {@link LeaseState#UNCERTAIN} while the connection is suspended,
     * {@link LeaseState#HELD} when it is sure again (also after rejoining, or after its node was made again),
     * {@link LeaseState#LOST} when its session expired or its node was found deleted or taken by another session
     * (until it is ours again), {@link LeaseState#RELEASED} when closed.
     */
    default void selfChanged(LeaseState state) {
    }
}
