package dev.zkr.server.round;

import dev.zkr.consensus.Role;
import dev.zkr.server.peer.ServerMessage;

/**
 * A follower's messages to its leader, and which leader holds its undecided work: the leader (and epoch) it last
 * entrusted with a forward, a new session or a read point, so that losing that leader — a leader change, or a reset
 * of the link to it — can be told apart from events that leave the work where it is.
 *
 * <p>Round state: touched only inside a round, under {@link Core}'s round lock, by whichever thread runs it
 * (docs/architecture.md, Threads); in the simulator, by its one thread.
 */
final class LeaderLink {

    private final PeerLink peers;
    private final RoleView role;
    /** The leader (and its epoch) the forwarded items went to. */
    private int forwardedTo = -1;
    private long forwardedEpoch = -1;

    LeaderLink(PeerLink peers, RoleView role) {
        this.peers = peers;
        this.role = role;
    }

    /** The current leader is about to hold work of this server that is not decided yet. */
    void entrust() {
        forwardedTo = role.leaderId();
        forwardedEpoch = role.epoch();
    }

    /** The epoch of the leader this server follows now. */
    long epoch() {
        return role.epoch();
    }

    /** Sends a message to the current leader. */
    void send(ServerMessage m) {
        peers.send(role.leaderId(), m);
    }

    /** True if server {@code id} is the leader the undecided work went to. */
    boolean entrusted(int id) {
        return id == forwardedTo;
    }

    /** True while this server follows, in the same epoch, the leader its undecided work went to. */
    boolean stillFollowingIt() {
        return forwardedTo == role.leaderId() && forwardedEpoch == role.epoch() && role.get().role() == Role.FOLLOWER;
    }
}
