package dev.zkr.server.round;

import dev.zkr.client.ZkException;
import dev.zkr.server.peer.ServerMessage;
import dev.zkr.tree.DataTree;
import dev.zkr.wire.Message;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * An ensemble member's client handshakes, held until this server can answer them: as an in-service leader that
 * applied what the client saw; as a follower, a new session once the leader created it ({@link FollowerSide}), an
 * existing one once the leader confirmed it live ({@code Attach}, {@code AttachReply}) and this server applied what
 * the client and the leader saw. A handshake held longer than 2T (no leader meanwhile) is refused CONNECTION_LOSS.
 *
 * <p>Round state: touched only inside a round, under {@link Core}'s round lock, by whichever thread runs it
 * (docs/architecture.md, Threads); in the simulator, by its one thread.
 */
final class HeldHandshakes {

    /** A handshake held until this server can answer it (in service, caught up with what the client saw). */
    static final class Handshake {
        final Connection connection;
        final Message.ConnectRequest request;
        final long since;
        /** Its attach check with the leader, under {@link #ctx} in the read points while one is out. */
        final ReadPoints.AttachCheck check = new ReadPoints.AttachCheck(this);
        long ctx;
        long sentEpoch = -1;
        int sentTo = -1;
        boolean verified;
        long needZxid;

        Handshake(Connection connection, Message.ConnectRequest request, long since) {
            this.connection = connection;
            this.request = request;
            this.since = since;
        }
    }

    private final DataTree tree;
    private final SessionGate gate;
    private final RoleView role;
    private final ReadPoints readPoints;
    private final LeaderLink leaderLink;
    private final LeaderSide leader;
    private final FollowerSide follower;
    private final Sequencer sequencer;
    private final int selfId;
    /** How long a handshake is held at most (2T). */
    private final long holdMs;
    private final ArrayDeque<Handshake> handshakes = new ArrayDeque<>();

    HeldHandshakes(DataTree tree, SessionGate gate, RoleView role, ReadPoints readPoints, LeaderLink leaderLink,
                   LeaderSide leader, FollowerSide follower, Sequencer sequencer, int selfId, long holdMs) {
        this.tree = tree;
        this.gate = gate;
        this.role = role;
        this.readPoints = readPoints;
        this.leaderLink = leaderLink;
        this.leader = leader;
        this.follower = follower;
        this.sequencer = sequencer;
        this.selfId = selfId;
        this.holdMs = holdMs;
    }

    /** Holds a handshake until a round can answer it. */
    void hold(Connection c, Message.ConnectRequest cr, long now) {
        handshakes.addLast(new Handshake(c, cr, now));
    }

    /** The link to the leader was reset: the attach checks out are asked again on the next link. */
    void linkLost() {
        for (Handshake h : handshakes) {
            h.sentTo = -1;
        }
    }

    /** The leader's answer to an attach check. */
    void onAttachReply(ServerMessage.AttachReply r) {
        ReadPoints.AttachCheck check = readPoints.takeAttachCheck(r.ctx());
        if (check == null) {
            return;
        }
        Handshake h = check.handshake();
        if (!r.live()) {
            handshakes.remove(h);
            gate.refuse(h.connection, ZkException.Code.SESSION_EXPIRED, "session 0x"
                    + Long.toHexString(h.request.sessionId()) + " expired");
            return;
        }
        h.verified = true;
        h.needZxid = Math.max(h.request.lastZxidSeen(), r.zxid());
    }

    /** Answers the held handshakes this server can answer now; refuses those held too long. */
    void round(long now, boolean ready, boolean following) {
        for (Iterator<Handshake> it = handshakes.iterator(); it.hasNext(); ) {
            Handshake h = it.next();
            Connection c = h.connection;
            Message.ConnectRequest cr = h.request;
            if (c.closed) {
                it.remove();
                readPoints.cancel(h.ctx, h.check);
                continue;
            }
            if (ready && cr.lastZxidSeen() <= tree.lastZxid()) {
                it.remove();
                readPoints.cancel(h.ctx, h.check);
                gate.connect(c, cr, now, sequencer);
                if (c.sessionId != 0) {
                    leader.ownedHere(c.sessionId);
                }
                continue;
            }
            if (following && cr.sessionId() == 0) {
                it.remove();
                follower.newSession(c, gate.newSession(cr), now);
                continue;
            }
            if (following && (h.sentTo != role.leaderId() || h.sentEpoch != role.epoch())) {
                readPoints.cancel(h.ctx, h.check);
                h.ctx = readPoints.add(h.check);
                h.sentTo = role.leaderId();
                h.sentEpoch = role.epoch();
                h.verified = false;
                leaderLink.send(new ServerMessage.Attach(cr.sessionId(), cr.password(), h.ctx));
            } else if (following && h.verified && tree.lastZxid() >= h.needZxid) {
                it.remove();
                if (gate.attachExisting(c, cr.sessionId(), cr.password(), now)) {
                    follower.touch(cr.sessionId());
                }
                continue;
            }
            if (now - h.since > holdMs) {
                it.remove();
                readPoints.cancel(h.ctx, h.check);
                gate.refuse(c, ZkException.Code.CONNECTION_LOSS, "server " + selfId + " has no leader to serve "
                        + "this session yet (or has not seen zxid 0x" + Long.toHexString(cr.lastZxidSeen()) + ")");
            }
        }
    }
}
