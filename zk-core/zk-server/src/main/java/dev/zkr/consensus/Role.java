package dev.zkr.consensus;

/**
 * The role a replica plays in its current epoch: the one role type of zkr, also what {@code ZkServer.role()} reports
 * and, in lower case, what the admin endpoint shows (docs/architecture.md, Names).
 */
public enum Role {
    /** It follows a leader (or waits for one to be elected). */
    FOLLOWER,
    /** It campaigns to lead. */
    CANDIDATE,
    /** It sequences writes (a standalone server always leads). */
    LEADER
}
