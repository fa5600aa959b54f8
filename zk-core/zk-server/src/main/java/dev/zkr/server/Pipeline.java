package dev.zkr.server;

import dev.zkr.client.ZkException;
import dev.zkr.tree.ApplyResult;
import dev.zkr.tree.DataTree;
import dev.zkr.tree.Prepared;
import dev.zkr.tree.Request;
import dev.zkr.tree.Txn;
import dev.zkr.tree.TxnCodec;
import dev.zkr.wire.Message;

import java.util.ArrayDeque;
import java.util.List;

/**
 * The server's round logic without threads or locks (REPLICATION.md §3.2): {@link Core} — or a simulator — feeds it
 * one round's events ({@link #requests}, {@link #durable}, {@link #disconnected}, tasks run in the round) and then
 * calls {@link #endRound}. It owns the tree, the pending changes, the watches and the sessions through its stages,
 * and keeps the write order: writes (and syncs and failed writes) are sequenced in {@link #inFlight} in prepare order
 * and completed strictly in that order once committed, each write when the applied txn names its request (session
 * id and xid in the txn header), not by position alone; a read waits in its connection's queue behind that
 * connection's earlier writes, so every session is answered in FIFO order and sees its own writes. The time is
 * passed in. One caller at a time.
 */
final class Pipeline implements Sequencer {

    /** The answer to a request of a session that is closed, closing or expired. */
    private static final Prepared.Failed SESSION_GONE =
            Prepared.Failed.of(ZkException.Code.SESSION_EXPIRED, null, "session is closed or expired");

    private final DataTree tree;
    private final SessionGate gate;
    private final ReadStage reads;
    private final PrepStage prep;
    private final LogStage logStage;
    private final Quorum quorum;
    private final ApplyStage apply;
    private final Housekeeping housekeeping;
    private final Outbox outbox;
    private long nextTick;
    /** Local items in write order, each waiting for its txn to be applied or (txn-less) for the items before it. */
    private final ArrayDeque<Pending> inFlight = new ArrayDeque<>();
    /** The apply stream: txns in zxid order, applied once committed (those sequenced here and the quorum's own). */
    private final ArrayDeque<TxnCodec.Entry> toApply = new ArrayDeque<>();
    private long committedZxid;

    Pipeline(DataTree tree, SessionGate gate, ReadStage reads, PrepStage prep, LogStage logStage, Quorum quorum,
             ApplyStage apply, Housekeeping housekeeping, Outbox outbox) {
        this.tree = tree;
        this.gate = gate;
        this.reads = reads;
        this.prep = prep;
        this.logStage = logStage;
        this.quorum = quorum;
        this.apply = apply;
        this.housekeeping = housekeeping;
        this.outbox = outbox;
        this.committedZxid = tree.lastZxid();
    }

    /** The requests of one socket read, in order; none once the server stops taking requests. */
    void requests(List<Core.Inbound> batch, long now, boolean accepting) {
        for (Core.Inbound in : batch) {
            if (!accepting) {
                break;
            }
            onMessage(in.connection(), in.message(), now);
        }
    }

    /** The local log reported every record up to {@code zxid} durable. */
    void durable(long zxid) {
        quorum.durable(zxid);
    }

    /** A connection closed. */
    void disconnected(Connection c) {
        c.closed = true;
        c.queue.clear();
        gate.disconnected(c);
    }

    /**
     * Ends a round at {@code now}: the timer if due ({@code timers}: the server still takes work), commits and
     * completions, one log hand-off, one flush per connection.
     */
    void endRound(long now, boolean timers) {
        boolean inService = quorum.inService();
        if (now >= nextTick) {
            if (timers && inService) {
                housekeeping.tick(now, this);
            }
            nextTick = now + housekeeping.tickIntervalMs();
        }
        committedZxid = Math.max(committedZxid, quorum.drive(toApply::addLast));
        completeReady(now);
        committedZxid = Math.max(committedZxid, quorum.drive(toApply::addLast));
        logStage.endRound();
        outbox.flush();
    }

    /** When the next timer is due (millis). */
    long nextTick() {
        return nextTick;
    }

    /** True when every sequenced item is answered and every txn applied. */
    boolean drained() {
        return inFlight.isEmpty() && toApply.isEmpty();
    }

    /** True while the quorum lets this server sequence writes. */
    boolean inService() {
        return quorum.inService();
    }

    private void onMessage(Connection c, Message m, long now) {
        if (c.closed) {
            return;
        }
        if (m instanceof Message.ConnectRequest cr) {
            gate.connect(c, cr, now, this);
            return;
        }
        Message.Request r = (Message.Request) m;
        if (!gate.touch(c, now)) {
            // answered in order behind the session's earlier requests
            sequence(new Pending(Pending.Kind.CLIENT, c, r, null, null, SESSION_GONE));
            return;
        }
        if (r instanceof Message.CreateRequest || r instanceof Message.DeleteRequest
                || r instanceof Message.SetDataRequest || r instanceof Message.MultiRequest) {
            sequence(prep.write(c, r));
        } else if (r instanceof Message.SyncRequest) {
            sequence(new Pending(Pending.Kind.CLIENT, c, r, null, null, null));
        } else if (r instanceof Message.CloseSessionRequest) {
            sequence(gate.close(c, r, this));
        } else if (c.queue.isEmpty()) {
            reads.serve(c, r);
        } else {
            c.queue.addLast(r);
        }
    }

    @Override
    public Pending prepare(Pending.Kind kind, Connection c, Message.Request r, Request request, long sessionId) {
        return prep.prepare(kind, c, r, request, sessionId);
    }

    @Override
    public void sequence(Pending p) {
        inFlight.addLast(p);
        if (p.connection != null) {
            p.connection.queue.addLast(p);
        }
        if (p.txn != null) {
            toApply.addLast(new TxnCodec.Entry(p.header, p.txn));
            quorum.append(p.header, p.txn);
        }
    }

    /**
     * Applies every committed txn of the apply stream in zxid order and completes the local items they answer,
     * keeping the write order: a txn-less item completes once everything sequenced before it has; the item at the
     * head completes when the txn applied names its request (same session and xid). A txn no local item waits for
     * (none on a standalone server; a follower's stream will carry other servers' txns) is applied without reply.
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
                return;
            }
            toApply.pollFirst();
            ApplyResult result = apply.apply(e.header(), e.txn(), now);
            if (head != null && head.answers(e.header())) {
                inFlight.pollFirst();
                complete(head, result);
            }
            if (e.txn() instanceof Txn.CloseSession cs) {
                gate.disconnectClosed(cs.sessionId());
            }
            housekeeping.applied(e.header(), e.txn());
        }
    }

    /** Answers a local item: with what applying its txn produced, or (txn-less) its failure or OK. */
    private void complete(Pending p, ApplyResult result) {
        long zxid = tree.lastZxid();
        switch (p.kind) {
            case CLIENT -> answer(p, result == null
                    ? (p.failure == null ? Replies.ok(p.request.xid(), zxid, null)
                    : Replies.error(p.request.xid(), zxid, p.failure))
                    : Replies.fromApply(p.request, result, zxid));
            case CREATE_SESSION -> {
                dequeue(p);
                gate.created(p);
            }
            case CLOSE_SESSION -> {
                answer(p, Replies.ok(p.request.xid(), zxid, null));
                if (p.txn == null) {
                    gate.closedWithoutTxn(p.connection.sessionId);
                }
            }
            case EXPIRE_SESSION, INTERNAL -> {
            }
        }
    }

    /** Sends the reply of a sequenced item, then serves the reads that were waiting behind it. */
    private void answer(Pending p, Message.Reply reply) {
        Connection c = p.connection;
        if (c == null || c.closed) {
            return;
        }
        dequeue(p);
        c.reply(reply);
        while (!c.queue.isEmpty() && !(c.queue.peekFirst() instanceof Pending)) {
            reads.serve(c, (Message.Request) c.queue.pollFirst());
        }
    }

    private static void dequeue(Pending p) {
        Connection c = p.connection;
        if (c != null && c.queue.peekFirst() == p) {
            c.queue.pollFirst();
        }
    }

}
