package dev.zkr.server.round;

import dev.zkr.server.ZkServer;
import dev.zkr.client.ZkException;
import dev.zkr.consensus.Role;
import dev.zkr.consensus.RoleInfo;
import dev.zkr.consensus.Zxid;
import dev.zkr.server.peer.ServerMessage;
import dev.zkr.tree.ApplyResult;
import dev.zkr.tree.DataTree;
import dev.zkr.tree.Prepared;
import dev.zkr.tree.Replacement;
import dev.zkr.tree.Request;
import dev.zkr.tree.Txn;
import dev.zkr.tree.TxnCodec;
import dev.zkr.wire.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.List;

/**
 * The server's round logic without threads or locks (docs/architecture.md, The round): {@link Core} — or a simulator —
 * feeds it one round's events ({@link #requests}, {@link #durable}, {@link #disconnected}, {@link #peerMessage}, tasks
 * run in the round) and then calls {@link #endRound}. It owns the tree, the pending changes, the watches and the
 * sessions through its stages. The time is passed in. One caller at a time.
 *
 * <p>It keeps the round's inputs and the sequence that ends a round: prepare and sequence (on the leader, and a
 * standalone server, writes are sequenced in {@link #inFlight} in prepare order), drive the replication, apply what it
 * committed, complete the items the applied txns name (strictly in write order, each when the applied txn names its
 * request: session id and xid in the txn header), handle a role change, then the ensemble's per-round work. The
 * rest has a class each: {@link ClientRequests} routes client requests in their connection's order;
 * {@link ReplyQueue} sends every reply in its connection's order; {@link FollowerSide} forwards to the leader and
 * answers what it forwarded; {@link LeaderSide} sequences the followers' requests and steps down;
 * {@link HeldHandshakes}, {@link HeldRequests} and the {@link Fence} hold what cannot be answered yet;
 * {@link ReadPoints} maps each ctx handed out to what waits for its answer.
 *
 * <p>Round state: touched only inside a round, under {@link Core}'s round lock, by whichever thread runs it
 * (docs/architecture.md, Threads); in the simulator, by its one thread.
 */
final class Pipeline implements Sequencer {

    private static final Logger log = LoggerFactory.getLogger(ZkServer.class);

    /** The answer to a request of a session that is closed, closing or expired. */
    static final Prepared.Failed SESSION_GONE =
            Prepared.Failed.of(ZkException.Code.SESSION_EXPIRED, null, "session is closed or expired");

    /** A read point the replication handed back during a drive: {@code readZxid} for {@code ctx} (0: refused). */
    private record ReadState(long ctx, long readZxid) {
    }

    private final DataTree tree;
    private final SessionGate gate;
    private final ReadStage reads;
    private final PrepStage prep;
    private final LogStage logStage;
    private final Replication replication;
    private final ApplyStage apply;
    private final Housekeeping housekeeping;
    private final Outbox outbox;
    private final PeerLink peers;
    private final int selfId;
    private final boolean ensemble;
    /** How long handshakes and writes are held without a leader, and after which clients are let go (2T). */
    private final long holdMs;
    private long nextTick;
    private long lastRoundAt;
    /** Local items in write order, each waiting for its txn to be applied or (txn-less) for the items before it. */
    private final ArrayDeque<Pending> inFlight = new ArrayDeque<>();
    /** The apply stream: txns in zxid order, applied once committed (those sequenced here and the replication's own). */
    private final ArrayDeque<TxnCodec.Entry> toApply = new ArrayDeque<>();
    private long committedZxid;
    private final Stream stream = new Stream();
    /** Read points handed out during a drive, handled once it returned. */
    private final ArrayDeque<ReadState> readStates = new ArrayDeque<>();

    /** The role this pipeline acts in, and what it lets it do. */
    private final RoleView role;
    /** The in-order reply rule: each connection's replies leave in its request order. */
    private final ReplyQueue replies = new ReplyQueue();
    /** The ctxs handed out: syncs and fence reads waiting for their read point, attach checks for their answer. */
    private final ReadPoints readPoints = new ReadPoints();
    private final ClientRequests requests;
    private final Duplicates duplicates;

    // ---- ensemble parts (idle on a standalone server) --------------------------------------------------------------
    /** Requests held: while no leader can take them, and everything of a fenced connection. */
    private final HeldRequests held = new HeldRequests();
    /** Connections told CONNECTION_LOSS for a write a leader change left undecided wait behind it. */
    private final Fence fence;
    /** Follower: its messages to the leader, and which leader holds its undecided work. */
    private final LeaderLink leaderLink;
    /** Follower: forwarding to the leader, and answering what it forwarded. */
    private final FollowerSide follower;
    /** Leader: sequencing its followers' requests, and stepping down. */
    private final LeaderSide leader;
    /** Handshakes held until this server can answer them. */
    private final HeldHandshakes handshakes;
    /** Time without a leader, counted in the replica's ticks (a paused or starved server does not count its pause). */
    private long leaderlessMs;
    private boolean letGo;

    Pipeline(DataTree tree, SessionGate gate, ReadStage reads, PrepStage prep, LogStage logStage, Replication replication,
             ApplyStage apply, Housekeeping housekeeping, Outbox outbox, PeerLink peers, int selfId, boolean ensemble,
             long electionTimeoutMs, long heartbeatMs) {
        this.tree = tree;
        this.gate = gate;
        this.reads = reads;
        this.prep = prep;
        this.logStage = logStage;
        this.replication = replication;
        this.apply = apply;
        this.housekeeping = housekeeping;
        this.outbox = outbox;
        this.peers = peers;
        this.selfId = selfId;
        this.ensemble = ensemble;
        this.holdMs = 2 * electionTimeoutMs;
        this.committedZxid = tree.lastZxid();
        this.role = new RoleView(replication, prep, tree);
        this.leaderLink = new LeaderLink(peers, role);
        this.fence = new Fence(tree, replication, role, leaderLink, replies, readPoints, holdMs);
        this.follower = new FollowerSide(tree, gate, replies, readPoints, fence, leaderLink, holdMs,
                Math.max(10, heartbeatMs));
        this.duplicates = new Duplicates(tree);
        this.leader = new LeaderSide(tree, gate, prep, replication, housekeeping, peers, role, readPoints, fence, this,
                duplicates, selfId);
        this.handshakes = new HeldHandshakes(tree, gate, role, readPoints, leaderLink, leader, follower, this, selfId,
                holdMs);
        this.requests = new ClientRequests(tree, gate, reads, prep, replication, role, replies, readPoints, held, fence,
                handshakes, leader, follower, leaderLink, this, duplicates, ensemble);
        replies.routeWith(requests);
    }

    // ---- inputs ----------------------------------------------------------------------------------------------------

    /** The requests of one socket read, in order; none once the server stops taking requests. */
    void requests(List<Core.Inbound> batch, long now, boolean accepting) {
        for (Core.Inbound in : batch) {
            if (!accepting) {
                break;
            }
            requests.onMessage(in.connection(), in.message(), now);
        }
    }

    /** The local log reported every record up to {@code zxid} durable. */
    void durable(long zxid) {
        replication.durable(zxid);
    }

    /** A connection closed. */
    void disconnected(Connection c) {
        c.closed = true;
        c.queue.clear();
        held.disconnected(c);
        fence.disconnected(c);
        gate.disconnected(c);
    }

    /** A message from peer {@code from}: the consensus core's (snapshot transfers too), or a server-level one. */
    void peerMessage(int from, Object m, long now) {
        if (!replication.peerMessage(from, m, stream) && m instanceof ServerMessage sm) {
            onServerMessage(from, sm, now);
        }
    }

    void peerUp(int id) {
        replication.peerUp(id);
    }

    /**
     * The link to a peer closed. If it is the leader this server forwards to, what it forwarded may be lost with
     * the connection: its undecided forwards and syncs are answered CONNECTION_LOSS now (their connections fenced
     * until a sync through the next link shows their fate) rather than waiting for a leader change that may not come.
     */
    void peerDown(int id) {
        replication.peerDown(id);
        if (ensemble && leaderLink.entrusted(id)) {
            follower.loseForwards("the link to the leader was reset before this request was decided");
            handshakes.linkLost(); // their attach checks are asked again on the next link
        }
    }

    /**
     * Ends a round at {@code now}: the timers if due ({@code timers}: the server still takes work), commits and
     * completions, one log hand-off, one flush per connection.
     */
    void endRound(long now, boolean timers) {
        lastRoundAt = now;
        requests.roundAt(now);
        int ticks = replication.tick(now);
        leaderlessMs += ticks * (long) Replication.TICK_MS;
        if (now >= nextTick) {
            if (timers && role.leaderReady()) {
                housekeeping.tick(now, this);
            }
            nextTick = now + housekeeping.tickIntervalMs();
            reads.flushProblems(); // the summary of authentication failures held back, once their window is over
        }
        drive();
        completeReady(now);
        drive();
        if (!replication.role().equals(role.get())) {
            roleChanged(role.get(), replication.role(), now);
            completeReady(now);
        }
        if (ensemble) {
            ensembleRound(now);
        }
        logStage.endRound();
        peers.flush();
        outbox.flush();
    }

    /** When the next timer is due (millis). */
    long nextTick() {
        return Math.min(nextTick, replication.nextTick());
    }

    /**
     * True when every sequenced item is answered and every txn applied. An ensemble member is drained once what it
     * sequenced or forwarded is answered, or at once when it has no leader (nothing more can be decided); records
     * it logged for another leader stay in its log for the next one.
     */
    boolean drained() {
        if (!ensemble) {
            return inFlight.isEmpty() && toApply.isEmpty();
        }
        return !serving() || (inFlight.isEmpty() && !follower.hasForwards());
    }

    /** True while the replication lets this server sequence writes. */
    boolean inService() {
        return replication.inService();
    }

    /** True once this server may take clients: it leads in service, or follows a leader. */
    boolean serving() {
        return role.leaderReady() || role.following();
    }

    /** How many writes sent again this server's leader side found (answered with their saved replies). */
    long duplicatesFound() {
        return duplicates.found();
    }

    RoleInfo role() {
        return role.get();
    }

    /** Expires a session now (test hook): only an in-service leader decides expiries; false elsewhere. */
    boolean expireNow(long sessionId) {
        return role.leaderReady() && gate.expireNow(sessionId, this);
    }

    // ---- peers' server-level messages and read points --------------------------------------------------------------

    private void onServerMessage(int from, ServerMessage m, long now) {
        if (m instanceof ServerMessage.Touches t) {
            for (long id : t.sessionIds()) {
                gate.touchRemote(id, now);
            }
        } else if (m instanceof ServerMessage.ForwardReply r) {
            follower.onForwardReply(from, r);
        } else if (m instanceof ServerMessage.SyncReadReply r) {
            onReadState(r.ctx(), r.readZxid());
        } else if (m instanceof ServerMessage.AttachReply r) {
            handshakes.onAttachReply(r);
        } else {
            leader.onRequest(from, m, now); // Forward, ForwardSession, SyncRead, Attach
        }
    }

    /** A read point came back (from the replication, or the leader): {@code readZxid} for {@code ctx} (0: refused). */
    private void onReadState(long ctx, long readZxid) {
        ReadPoints.Waiter w = readPoints.takeRead(ctx);
        if (w instanceof ReadPoints.PeerSync remote) {
            peers.send(remote.origin(), new ServerMessage.SyncReadReply(remote.theirCtx(), readZxid));
        } else if (w instanceof ReadPoints.FenceRead) {
            fence.readPoint(readZxid);
        } else if (w instanceof ReadPoints.ClientSync sync) {
            int xid = sync.request().xid();
            if (readZxid <= 0) {
                replies.answer(sync.slot(), Replies.error(xid, tree.lastZxid(), Prepared.Failed.of(
                        ZkException.Code.CONNECTION_LOSS, null, "sync refused: the leader changed")));
            } else {
                replies.answerOnceApplied(sync.slot(), Replies.ok(xid, readZxid, null), readZxid);
            }
        }
    }

    // ---- the ensemble's per-round work ------------------------------------------------------------------------------

    private void ensembleRound(long now) {
        boolean ready = role.leaderReady();
        boolean following = role.following();
        if (ready || following) {
            leaderlessMs = 0;
            letGo = false;
        }
        if (ready) {
            leader.releaseHeld(now);
        }
        if (ready || following) { // a fenced connection's requests are held again
            requests.releaseHeld(now);
        }
        handshakes.round(now, ready, following);
        if (following) {
            follower.reportTouches(now);
        }
        if (!ready && !following && !letGo && leaderlessMs > holdMs) {
            letGo = true;
            int n = gate.closeAll();
            held.closeAll();
            if (n > 0) {
                log.warn("server {} has had no leader for {} ms: closing its {} client connection(s) so they move "
                        + "to the majority", selfId, leaderlessMs, n);
            }
        }
        follower.expireStale(now);
        fence.round(now);
        replies.releaseApplied(tree.lastZxid());
    }

    private void roleChanged(RoleInfo old, RoleInfo now, long nowMs) {
        role.set(now);
        boolean wasLeader = old.role() == Role.LEADER;
        boolean sameReign = old.leaderId() == now.leaderId() && old.epoch() == now.epoch();
        if (ensemble && (old.role() != now.role() || !sameReign)) {
            log.info("role: server {} is {} (leader {}, epoch {})", selfId, now.role(), now.leaderId(), now.epoch());
        }
        if (wasLeader && (now.role() != Role.LEADER || old.epoch() != now.epoch())) {
            leader.stepDown(inFlight);
        }
        if (!sameReign || now.role() != Role.FOLLOWER) {
            follower.leaderLost();
        }
        if (now.role() != Role.LEADER) {
            leader.notLeading();
        }
        if (now.role() == Role.LEADER && now.inService() && prep.epoch() != now.epoch()) {
            leader.startEpoch(now.epoch(), nowMs);
        } else if (now.role() == Role.LEADER && now.inService() && !old.inService()) {
            gate.touchAll(nowMs);
        }
    }

    // ---- sequencing and completion ----------------------------------------------------------------------------------

    @Override
    public Pending prepare(Pending.Kind kind, Connection c, Message.Request r, Request request, long sessionId) {
        return prep.prepare(kind, c, r, request, sessionId);
    }

    @Override
    public long txnTime() {
        return prep.txnTime();
    }

    @Override
    public void sequence(Pending p) {
        inFlight.addLast(p);
        if (p.slot != null) {
            ReplyQueue.enqueue(p.slot);
        }
        if (p.txn != null) {
            toApply.addLast(new TxnCodec.Entry(p.header, p.txn));
            replication.append(p.header, p.txn);
        }
    }

    private void drive() {
        committedZxid = Math.max(committedZxid, replication.drive(stream));
        while (!readStates.isEmpty()) { // after the drive: answering may route requests, which are replica inputs
            ReadState r = readStates.pollFirst();
            onReadState(r.ctx(), r.readZxid());
        }
    }

    /** What the replication hands back in a round. */
    private final class Stream implements Replication.Stream {
        @Override
        public void add(TxnCodec.Entry e) {
            prep.logged(e.header().time()); // a later txn of this server (a new leader's) is not older
            toApply.addLast(e);
        }

        @Override
        public void truncateAfter(long zxid) {
            while (!toApply.isEmpty() && toApply.peekLast().header().zxid() > zxid) {
                toApply.pollLast();
            }
        }

        @Override
        public void readState(long ctx, long readZxid) {
            readStates.addLast(new ReadState(ctx, readZxid));
        }

        @Override
        public void installed(DataTree loaded, long zxid) {
            installSnapshot(loaded, zxid);
        }
    }

    /**
     * SNAP sync: the tree becomes the leader's snapshot, in place. Records up to its zxid are in it (dropped from
     * the apply stream); the watches of the changed nodes fire and the sessions follow, as if the records between
     * had been applied one by one, so this server's clients keep their connections.
     */
    private void installSnapshot(DataTree loaded, long zxid) {
        Replacement r = tree.replaceWith(loaded);
        prep.logged(tree.lastTxnTime()); // the snapshot's txns were never logged here: their times count all the same
        toApply.removeIf(e -> e.header().zxid() <= zxid);
        committedZxid = Math.max(committedZxid, zxid);
        apply.installed(r, lastRoundAt);
        if (housekeeping.memberships() != null && tree.membership() != null) {
            housekeeping.memberships().installed(tree.membership().membership());
        }
        log.info("server {} switched to snapshot {} ({} nodes, {} watch triggers, sessions +{} -{})", selfId,
                Zxid.str(zxid), tree.nodeCount(), r.triggers().size(), r.sessionsAdded().size(),
                r.sessionsRemoved().size());
    }

    /**
     * Applies every committed txn of the apply stream in zxid order and completes the items they answer,
     * keeping the write order: a txn-less item completes once everything sequenced before it has; the item at the
     * head completes when the txn applied names its request (same session and xid). A txn no local item waits for
     * (another server's) is applied without reply, unless a forwarded item of this server waits for it.
     */
    private void completeReady(long now) {
        while (true) {
            Pending head = inFlight.peekFirst();
            if (head != null && head.txn == null) {
                inFlight.pollFirst();
                complete(head, null);
                continue;
            }
            TxnCodec.Entry e = toApply.peekFirst();
            if (e == null || e.header().zxid() > committedZxid) {
                break;
            }
            toApply.pollFirst();
            ApplyResult result = apply.apply(e.header(), e.txn(), now);
            if (e.header().xid() != dev.zkr.tree.TxnHeader.NO_XID) {
                duplicates.applied(e.header().sessionId(), e.header().xid());
            }
            if (head != null && head.answers(e.header())) {
                inFlight.pollFirst();
                complete(head, result);
            } else {
                follower.applied(e.header(), e.txn(), result);
            }
            if (e.txn() instanceof Txn.CloseSession cs) {
                gate.disconnectClosed(cs.sessionId());
                leader.closed(cs.sessionId());
            }
            housekeeping.applied(e.header(), e.txn());
        }
        if (replies.hasDecided()) {
            replies.releaseApplied(tree.lastZxid());
        }
    }

    /** Membership changes and their waiters, or null for a server whose membership never changes. */
    MembershipChanges memberships() {
        return housekeeping.memberships();
    }

    /** A membership change asked of this server ({@link MembershipChanges#ask}). */
    void changeMembership(dev.zkr.client.MembershipChange change, java.util.concurrent.CompletableFuture<Long> done) {
        if (housekeeping.memberships() == null) {
            done.completeExceptionally(new IllegalStateException("this server's membership cannot change"));
        } else {
            housekeeping.memberships().ask(change, this, done);
        }
    }

    /** Answers a local item: with what applying its txn produced, or (txn-less) its failure or OK. */
    private void complete(Pending p, ApplyResult result) {
        long zxid = tree.lastZxid();
        if (p.duplicate) {
            Message.Reply reply = Replies.saved(p.request, tree.savedReply(p.sessionId(), p.request.xid()), zxid, tree);
            if (p.kind == Pending.Kind.FORWARDED) {
                leader.answer(p, reply, zxid);
            } else {
                replies.answer(p.slot, reply);
            }
            return;
        }
        switch (p.kind) {
            case CLIENT -> replies.answer(p.slot, result == null
                    ? (p.failure == null ? Replies.ok(p.request.xid(), zxid, null)
                    : Replies.error(p.request.xid(), zxid, p.failure))
                    : Replies.withDetail(Replies.fromApply(p.request, result, zxid, tree), p.failure));
            case CREATE_SESSION -> {
                ReplyQueue.dequeue(p.slot);
                gate.created(p.connection, (Txn.CreateSession) p.txn);
                leader.ownedHere(((Txn.CreateSession) p.txn).sessionId());
            }
            case CLOSE_SESSION -> {
                replies.answer(p.slot, Replies.ok(p.request.xid(), zxid, null));
                if (p.txn == null) {
                    gate.closedWithoutTxn(p.connection.sessionId);
                }
            }
            case FORWARDED -> {
                if (result == null && p.failure != null) {
                    leader.answerFailed(p, zxid);
                }
            }
            case EXPIRE_SESSION, INTERNAL -> {
            }
        }
    }
}
