package dev.zkr.server;

import dev.zkr.client.ZkException;
import dev.zkr.tree.ApplyResult;
import dev.zkr.tree.DataTree;
import dev.zkr.tree.Prepared;
import dev.zkr.tree.Request;
import dev.zkr.tree.Txn;
import dev.zkr.tree.TxnCodec;
import dev.zkr.wire.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The driver of the request pipeline: it owns the tree, the pending changes, the watches and the sessions, which
 * are only touched inside a round, one round at a time (the {@link #round} lock), so none of them needs a lock of
 * its own. Each round takes every event queued (requests from the event loops, commit notices from the log, timer
 * ticks), runs them through the stages, lets the {@link Quorum} turn durability into commits, hands the round's txns
 * to the log at once, and flushes each touched connection once.
 *
 * <p>Who runs a round: the core thread, or — when no round is running — the thread that brings the event: an
 * event loop with the requests it just read, the log writer with its durability notice when it has nothing else
 * to write. So a lone write costs two thread hand-offs (event loop → log writer → event loop) instead of four, while
 * under load the core thread takes the rounds and the writer keeps fsyncing.
 *
 * <p>Ordering: writes (and syncs and failed writes) are sequenced in {@link #inFlight} in prepare order and
 * completed strictly in that order once committed, each write when the applied txn names its request (session id
 * and xid in the txn header), not by position alone; a read waits in its connection's queue behind that
 * connection's earlier writes, so every session is answered in FIFO order and sees its own writes.
 */
final class Core implements Sequencer {

    private static final Logger log = LoggerFactory.getLogger(Core.class);

    /** The answer to a request of a session that is closed, closing or expired. */
    private static final Prepared.Failed SESSION_GONE =
            Prepared.Failed.of(ZkException.Code.SESSION_EXPIRED, null, "session is closed or expired");

    /** A request (or handshake) from a connection. */
    record Inbound(Connection connection, Message message) {
    }

    private record Disconnected(Connection connection) {
    }

    private record Durable(long zxid) {
    }

    private record Task(Runnable runnable) {
    }

    private final DataTree tree;
    private final SessionGate gate;
    private final ReadStage reads;
    private final PrepStage prep;
    private final LogStage logStage;
    private final Quorum quorum;
    private final ApplyStage apply;
    private final Housekeeping housekeeping;
    private final Outbox outbox = new Outbox();
    private final ConcurrentLinkedQueue<Object> queue = new ConcurrentLinkedQueue<>();
    /** Held by whichever thread runs a round: the core state below is only touched under it. */
    private final ReentrantLock round = new ReentrantLock();
    private volatile boolean coreParked;
    /** The core thread ended: no more rounds. */
    private volatile boolean finished;
    private long nextTick;
    /** Local items in write order, each waiting for its txn to be applied or (txn-less) for the items before it. */
    private final ArrayDeque<Pending> inFlight = new ArrayDeque<>();
    /** The apply stream: txns in zxid order, applied once committed (those sequenced here and the quorum's own). */
    private final ArrayDeque<TxnCodec.Entry> toApply = new ArrayDeque<>();
    private final Thread thread;
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    private long committedZxid;
    private volatile boolean stopping;
    private volatile boolean killed;
    private volatile Throwable failure;
    private volatile Runnable onFatal = () -> { };
    /** Completes once the quorum is in service (the server may take clients), or fails if the core ends first. */
    private final CompletableFuture<Void> serving = new CompletableFuture<>();

    /**
     * A core over parts assembled for its role ({@link Assembler}): it takes the log's durability notices and
     * failures as events, and is the {@link Sequencer} of the gate and housekeeping.
     */
    Core(DataTree tree, SessionGate gate, ReadStage reads, PrepStage prep, LogStage logStage, Quorum quorum,
         ApplyStage apply, Housekeeping housekeeping) {
        this.tree = tree;
        this.gate = gate;
        this.reads = reads;
        this.prep = prep;
        this.apply = apply;
        this.housekeeping = housekeeping;
        this.committedZxid = tree.lastZxid();
        this.logStage = logStage;
        this.quorum = quorum;
        logStage.listen(this::durable, this::logFailed);
        this.thread = new Thread(this::run, "zkr-core");
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    Outbox outbox() {
        return outbox;
    }

    // ---- entry points (any thread) ------------------------------------------------------------------------------

    /**
     * Requests read from one connection in one socket read (event loop). If no round is running, the event loop
     * runs one itself instead of waking the core thread: one thread hand-off less per request.
     */
    void submit(List<Inbound> batch) {
        offerAndRun(batch);
    }

    void disconnected(Connection c) {
        offer(new Disconnected(c));
    }

    /** Runs a task on the core thread (server hooks such as expireSession). */
    void execute(Runnable r) {
        offer(new Task(r));
    }

    /**
     * Told by the log's writer thread after each fsync. When the writer has nothing else queued it completes the
     * round itself (apply, replies) rather than waking the core thread; when more is queued it hands the round
     * over and goes on with the next fsync.
     */
    private void durable(long zxid) {
        if (logStage.writerIdle()) {
            offerAndRun(new Durable(zxid));
        } else {
            offer(new Durable(zxid));
        }
    }

    private void logFailed(Throwable e) {
        log.error("transaction log failed, the server stops serving writes: {}", e.toString());
        failure = e;
        offer(new Task(() -> { }));
    }

    private void offer(Object event) {
        queue.add(event);
        wakeCoreThread();
    }

    /** Queues the event, then runs a round on this thread if none is running; otherwise the core thread will. */
    private void offerAndRun(Object event) {
        queue.add(event);
        if (killed || finished || !round.tryLock()) {
            wakeCoreThread();
            return;
        }
        try {
            if (!finished) {
                runRound();
            }
        } catch (Throwable t) {
            log.error("request pipeline failed; the server stops serving", t);
            failure = t;
        } finally {
            round.unlock();
        }
        if (!queue.isEmpty() || failure != null || stopping) {
            wakeCoreThread(); // events queued while this thread held the round, or the end to notice
        }
    }

    private void wakeCoreThread() {
        if (coreParked) {
            LockSupport.unpark(thread);
        }
    }

    /**
     * Stops after the round in progress: no new requests are taken, every txn already prepared is logged and
     * applied and answered (waiting at most the given time), then the thread ends.
     */
    void stop(long timeoutMs) {
        stopping = true;
        offer(new Task(() -> { }));
        try {
            stopped.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            log.warn("core did not finish its last round within {} ms", timeoutMs);
            kill();
        }
    }

    /** Stops at once, abandoning everything in flight (crash simulation). */
    void kill() {
        killed = true;
        LockSupport.unpark(thread);
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---- rounds (the core thread, or an event loop / the log writer while the core thread is idle) ------------

    private void run() {
        try {
            while (!killed) {
                if (queue.isEmpty()) {
                    long waitMs;
                    round.lock();
                    try {
                        waitMs = nextTick - System.currentTimeMillis();
                    } finally {
                        round.unlock();
                    }
                    if (waitMs > 0) {
                        coreParked = true;
                        if (queue.isEmpty() && !killed && !stopping && failure == null) {
                            LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(waitMs));
                        }
                        coreParked = false;
                        Thread.interrupted(); // nobody interrupts the core thread on purpose; do not spin on it
                    }
                    if (killed) {
                        break;
                    }
                }
                round.lock();
                try {
                    runRound();
                    if ((stopping && inFlight.isEmpty() && toApply.isEmpty()) || failure != null) {
                        finished = true;
                        break;
                    }
                } finally {
                    round.unlock();
                }
            }
        } catch (Throwable t) {
            log.error("core thread failed; the server stops serving", t);
            failure = t;
        } finally {
            finished = true;
            serving.completeExceptionally(new IllegalStateException("the server's pipeline ended before serving",
                    failure));
            stopped.complete(null);
        }
        if (failure != null && !killed && !stopping) {
            onFatal.run();
        }
    }

    /** One round: every queued event, the timer if due, completions, one log hand-off, one flush per connection. */
    private void runRound() {
        Object e;
        long now = System.currentTimeMillis();
        while ((e = queue.poll()) != null && !killed) {
            handle(e, now);
        }
        boolean inService = quorum.inService();
        if (now >= nextTick) {
            if (!stopping && failure == null && inService) {
                housekeeping.tick(now, this);
            }
            nextTick = now + housekeeping.tickIntervalMs();
        }
        committedZxid = Math.max(committedZxid, quorum.drive(toApply::addLast));
        completeReady(now);
        committedZxid = Math.max(committedZxid, quorum.drive(toApply::addLast));
        logStage.endRound();
        if (!serving.isDone() && quorum.inService()) {
            serving.complete(null);
        }
        outbox.flush();
    }

    @SuppressWarnings("unchecked")
    private void handle(Object e, long now) {
        if (e instanceof List<?> batch) {
            for (Inbound in : (List<Inbound>) batch) {
                if (stopping || failure != null) {
                    break;
                }
                onMessage(in.connection(), in.message(), now);
            }
        } else if (e instanceof Durable d) {
            quorum.durable(d.zxid());
        } else if (e instanceof Disconnected d) {
            d.connection().closed = true;
            d.connection().queue.clear();
            gate.disconnected(d.connection());
        } else if (e instanceof Task t) {
            t.runnable().run();
        }
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

    /** What to run (once, on the core thread as it ends) when the pipeline fails: the server stops. */
    void onFatal(Runnable r) {
        this.onFatal = r;
    }

    boolean failed() {
        return failure != null;
    }

    /** Completes once the server may take clients (its quorum in service); fails if the core ends before. */
    CompletableFuture<Void> serving() {
        return serving;
    }
}
