package dev.zkr.server.round;

import dev.zkr.server.ServerConfig;
import dev.zkr.session.SessionTable;
import dev.zkr.storage.Snapshotter;
import dev.zkr.tree.DataTree;
import dev.zkr.tree.SystemNodes;
import dev.zkr.tree.TxnPreparer;
import dev.zkr.tree.WatchTable;
import dev.zkr.wire.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The driver of the request pipeline: it holds the event queue, the round lock and the {@code zkr-core} thread; the
 * {@link Pipeline} holds the round logic. Each round takes every event queued (requests from the event loops,
 * durability notices from the log, peer messages, timer ticks, tasks) and hands them to the pipeline, which runs them
 * through the stages, lets the {@link Replication} turn durability into commits, hands the round's txns to the log at
 * once, and flushes each touched connection once.
 *
 * <p>The round state is not owned by a thread but guarded by the {@link #round} lock: a round is run by the
 * {@code zkr-core} thread or — when no round is running — by the thread that brings the event (an event loop, the
 * peer I/O thread, the log writer), one round at a time, so none of the round's classes takes a lock of its own.
 * Who runs a round and why, what else is shared and how: docs/architecture.md, Threads.
 */
public final class Core {

    private static final Logger log = LoggerFactory.getLogger(Core.class);

    /** A request (or handshake) from a connection. */
    public record Inbound(Connection connection, Message message) {
    }

    private record Disconnected(Connection connection) {
    }

    private record Durable(long zxid) {
    }

    private record Task(Runnable runnable) {
    }

    private record PeerIn(int from, Object message) {
    }

    private record PeerUp(int id) {
    }

    private record PeerDown(int id) {
    }

    private final LogStage logStage;
    private final SessionGate gate;
    private final Pipeline pipeline;
    private final Replication replication;
    private final Outbox outbox = new Outbox();
    private final ConcurrentLinkedQueue<Object> queue = new ConcurrentLinkedQueue<>();
    /** Held by whichever thread runs a round: the round state is only touched under it. */
    private final ReentrantLock round = new ReentrantLock();
    private volatile boolean coreParked;
    /** Released by {@link #resume()}; null when not paused. */
    private CountDownLatch paused;
    /** The core thread ended: no more rounds. */
    private volatile boolean finished;
    private final Thread thread;
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    private volatile boolean stopping;
    private volatile boolean killed;
    private volatile Throwable failure;
    private volatile Runnable onFatal = () -> { };
    /** Completes once the replication is in service (the server may take clients), or fails if the core ends first. */
    private final CompletableFuture<Void> serving = new CompletableFuture<>();
    /** The role as of the last round (read by any thread). */
    private volatile dev.zkr.consensus.RoleInfo role;
    /** Whether the pipeline served clients as of the last round (read by any thread: /health). */
    private volatile boolean servingNow;
    /** Times this server became a candidate, and times the leader it knows changed (metrics; written in rounds). */
    private volatile long elections;
    private volatile long leaderChanges;

    /**
     * A core over parts assembled for its role ({@link #assemble}): it takes the log's durability notices and
     * failures as events.
     */
    Core(DataTree tree, SessionGate gate, ReadStage reads, PrepStage prep, LogStage logStage, Replication replication,
         ApplyStage apply, Housekeeping housekeeping, ServerConfig config, PeerLink peers) {
        this.logStage = logStage;
        this.gate = gate;
        this.replication = replication;
        this.pipeline = new Pipeline(tree, gate, reads, prep, logStage, replication, apply, housekeeping, outbox, peers,
                config.serverId(), config.isEnsemble(), config.electionTimeout().toMillis(),
                config.heartbeatInterval().toMillis());
        this.role = pipeline.role();
        logStage.listen(this::durable, this::logFailed);
        this.thread = new Thread(this::run, "zkr-core");
        this.thread.setDaemon(true);
    }

    /**
     * Wires the round's parts around a log stage and a replication ({@code Assembler} chooses them): the session
     * gate, the Prep, Apply and Read stages and housekeeping over {@code tree}.
     *
     * @param epoch    the epoch this server leads at start, -1 if it does not (an ensemble member)
     * @param lastZxid the last zxid in the tree or the log: the next txn gets a higher one
     */
    public static Core assemble(ServerConfig config, DataTree tree, SessionTable sessions, WatchTable watches,
                                Snapshotter snapshotter, LogStage logStage, Replication replication, long epoch,
                                long lastZxid, PeerLink peers, TxnClock txnClock, dev.zkr.tree.Txn.Membership configured) {
        SessionGate gate = new SessionGate(config, sessions, tree, watches);
        SystemNodes system = systemNodes(config, System.currentTimeMillis());
        PrepStage prep = new PrepStage(new TxnPreparer(tree, config.maxDataSize(),
                config.maxEphemeralsPerSession(), config.maxTxnBytes(), config.authorizer(), system), txnClock, epoch,
                lastZxid, config.isEnsemble());
        ApplyStage apply = new ApplyStage(tree, prep, watches, gate, config.authorizer());
        ReadStage reads = new ReadStage(tree, watches, apply, config.authorizer(), system, configured);
        if (config.isEnsemble()) {
            prep.planMembershipWith(replication, tree);
        }
        Housekeeping housekeeping = new Housekeeping(config, tree, gate, snapshotter,
                config.isEnsemble() ? new MembershipChanges(replication,
                        tree.membership() == null ? null : tree.membership().membership()) : null);
        return new Core(tree, gate, reads, prep, logStage, replication, apply, housekeeping, config, peers);
    }

    /**
     * ZooKeeper's /zookeeper nodes as this server shows them: a standalone server's, or an ensemble member's with its
     * member list in /zookeeper/config and {@code startTime} as its mtime.
     */
    static SystemNodes systemNodes(ServerConfig config, long startTime) {
        if (!config.isEnsemble()) {
            return SystemNodes.standalone();
        }
        return SystemNodes.ensemble(SystemNodes.membership(config.members().stream()
                .map(m -> new SystemNodes.Member(m.id(), m.host(), m.peerPort(), m.clientPort())).toList()), startTime);
    }

    public void start() {
        thread.start();
    }

    /** A new client connection whose messages go to {@code sink} (the client port, on the socket's event loop). */
    public Connection open(Connection.Sink sink) {
        return new Connection(sink, outbox);
    }

    /** The remote address of the connection serving {@code sessionId} on this server, or null (inside a round). */
    public String remoteOf(long sessionId) {
        Connection c = gate.connectionOf(sessionId);
        return c == null ? null : c.remote();
    }

    // ---- entry points (any thread) ------------------------------------------------------------------------------

    /**
     * Requests read from one connection in one socket read (event loop). If no round is running, the event loop
     * runs one itself instead of waking the core thread: one thread hand-off less per request.
     */
    public void submit(List<Inbound> batch) {
        offerAndRun(batch);
    }

    public void disconnected(Connection c) {
        offer(new Disconnected(c));
    }

    /**
     * A message from a peer (the peer transport's I/O thread). As for client requests, the I/O thread runs the round
     * itself when none is running: one thread hand-off less on every hop of a replicated write.
     */
    public void peerIn(int from, Object message) {
        offerAndRun(new PeerIn(from, message));
    }

    /**
     * Messages from one peer, in order (what one read of its link brought): queued together and handled in one
     * round, as a socket read's client requests are (one round, one log hand-off, one send per peer for all of them).
     */
    public void peerIn(int from, List<Object> messages) {
        if (messages.size() == 1) {
            peerIn(from, messages.get(0));
            return;
        }
        for (int i = 0, n = messages.size() - 1; i < n; i++) {
            queue.add(new PeerIn(from, messages.get(i)));
        }
        offerAndRun(new PeerIn(from, messages.get(messages.size() - 1)));
    }

    public void peerUp(int id) {
        offer(new PeerUp(id));
    }

    public void peerDown(int id) {
        offer(new PeerDown(id));
    }

    /** Expires a session now (test hook; inside a round): false unless this server leads in service. */
    public boolean expireNow(long sessionId) {
        return pipeline.expireNow(sessionId);
    }

    /** The role as of the last round. */
    public dev.zkr.consensus.RoleInfo role() {
        return role;
    }

    // ---- membership (docs/membership.md) -------------------------------------------------------------------------

    /**
     * Asks this server for a membership change: refused unless it leads in service and the change is the one allowed
     * now; completes with the record's zxid once this server applied it (committed), or exceptionally if it stopped
     * leading first (the change may or may not have committed). Any thread.
     */
    public CompletableFuture<Long> changeMembership(dev.zkr.client.MembershipChange change) {
        CompletableFuture<Long> done = new CompletableFuture<>();
        execute(() -> pipeline.changeMembership(change, done));
        return done;
    }

    /**
     * Completes with the membership this server applied last once it satisfies {@code wanted} ({@code configured}
     * stands for it while the ensemble never changed shape). Any thread.
     */
    public CompletableFuture<dev.zkr.tree.Txn.Membership> awaitMembership(
            java.util.function.Predicate<dev.zkr.tree.Txn.Membership> wanted, dev.zkr.tree.Txn.Membership configured) {
        CompletableFuture<dev.zkr.tree.Txn.Membership> done = new CompletableFuture<>();
        execute(() -> {
            MembershipChanges m = pipeline.memberships();
            if (m == null) {
                done.completeExceptionally(new IllegalStateException("this server's membership cannot change"));
            } else {
                m.await(wanted, configured, done);
            }
        });
        return done;
    }

    /** The membership in force on this server (its log's last record), or null for a standalone server. */
    public dev.zkr.tree.Txn.Membership membership() {
        return query(replication::membership, 5_000);
    }

    /** Runs a task inside a round (server hooks such as expireSession; whichever thread runs the round). */
    public void execute(Runnable r) {
        offer(new Task(r));
    }

    /**
     * Told by the log's writer thread after each fsync. When the writer has nothing else queued it completes the
     * round itself (apply, replies) rather than waking the core thread; when more is queued it hands the round
     * over and goes on with the next fsync.
     */
    private void durable(long zxid) {
        if (logStage.writerIdle()) {
            offerAndRun(new Durable(zxid), true);
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
        offerAndRun(event, false);
    }

    /**
     * As {@link #offerAndRun(Object)}; with {@code writerThread} (the log writer's thread) the round stops at the
     * first peer event of the queue and leaves it and what follows to the core thread: a peer message may make the
     * round truncate or restart the log, which waits for the writer — that is, for this very thread (the 30-minute
     * soak found an ensemble hung so, on a follower told to TRUNC).
     */
    private void offerAndRun(Object event, boolean writerThread) {
        queue.add(event);
        if (killed || finished || !round.tryLock()) {
            wakeCoreThread();
            return;
        }
        try {
            if (!finished) {
                runRound(writerThread);
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
    public void stop(long timeoutMs) {
        resume();
        stopping = true;
        offer(new Task(() -> { }));
        try {
            stopped.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            log.warn("core did not finish its last round within {} ms", timeoutMs);
            kill();
        }
    }

    /**
     * Stops every round until {@link #resume()}, as a SIGSTOP would (fault injection): a thread of its own holds the
     * round lock, so no request, peer message, durability notice or tick is handled and nothing is answered, while
     * the sockets stay open and queue what arrives. Idempotent.
     */
    public synchronized void pause() {
        if (paused != null || killed || finished) {
            return;
        }
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch held = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            round.lock();
            try {
                held.countDown();
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                round.unlock();
            }
        }, "zkr-paused");
        holder.setDaemon(true);
        holder.start();
        try {
            held.await();
        } catch (InterruptedException e) {
            release.countDown();
            Thread.currentThread().interrupt();
            return;
        }
        paused = release;
    }

    /** Lets rounds run again after {@link #pause()}: what queued meanwhile is handled at once. Idempotent. */
    public synchronized void resume() {
        if (paused != null) {
            paused.countDown();
            paused = null;
            wakeCoreThread();
        }
    }

    /** Stops at once, abandoning everything in flight (crash simulation). */
    public void kill() {
        resume();
        killed = true;
        LockSupport.unpark(thread);
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---- rounds (the core thread, or an event loop / the peer I/O thread / the log writer while it is idle) -----

    private void run() {
        try {
            while (!killed) {
                if (queue.isEmpty()) {
                    long waitMs;
                    round.lock();
                    try {
                        waitMs = pipeline.nextTick() - roundClock();
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
                    runRound(false);
                    if ((stopping && pipeline.drained()) || failure != null) {
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

    /**
     * One round: every queued event (on the log writer's thread, those before the first peer event), the timer if
     * due, completions, one log hand-off, one flush per connection.
     */
    private void runRound(boolean writerThread) {
        Object e;
        long now = roundClock();
        while ((e = queue.peek()) != null && !killed) {
            if (writerThread && (e instanceof PeerIn || e instanceof PeerUp || e instanceof PeerDown)) {
                break; // left to the core thread, woken when this round ends
            }
            queue.poll(); // the round's holder is the queue's only consumer: this is the event peeked
            handle(e, now);
        }
        pipeline.endRound(now, !stopping && failure == null);
        dev.zkr.consensus.RoleInfo before = role;
        role = pipeline.role();
        if (role != before) {
            countRoleChange(before, role);
        }
        servingNow = pipeline.serving();
        if (!serving.isDone() && pipeline.serving()) {
            serving.complete(null);
        }
    }

    private void countRoleChange(dev.zkr.consensus.RoleInfo before, dev.zkr.consensus.RoleInfo after) {
        if (after.role() == dev.zkr.consensus.Role.CANDIDATE && before.role() != dev.zkr.consensus.Role.CANDIDATE) {
            elections++; // only the round's holder writes it
        }
        if (after.leaderId() >= 0 && after.leaderId() != before.leaderId()) {
            leaderChanges++;
        }
    }

    /** Times this server became a candidate since it started. */
    public long elections() {
        return elections;
    }

    /** Times the leader this server knows of changed since it started. */
    public long leaderChanges() {
        return leaderChanges;
    }

    /** True if the pipeline served clients as of its last round (it leads in service, or follows a leader). */
    public boolean servingNow() {
        return servingNow && !finished && failure == null;
    }

    /**
     * Runs {@code query} inside a round and returns its result, waiting at most {@code timeoutMs} (admin endpoint:
     * state that only rounds may touch, such as the watch table). Throws {@link IllegalStateException} if the core
     * does not answer in time (stopped, or stuck).
     */
    public <T> T query(java.util.function.Supplier<T> query, long timeoutMs) {
        CompletableFuture<T> result = new CompletableFuture<>();
        execute(() -> {
            try {
                result.complete(query.get());
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
        try {
            return result.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e.getCause().toString(), e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("the server's pipeline did not answer within " + timeoutMs + " ms");
        }
    }

    @SuppressWarnings("unchecked")
    private void handle(Object e, long now) {
        if (e instanceof List<?> batch) {
            pipeline.requests((List<Inbound>) batch, now, !stopping && failure == null);
        } else if (e instanceof Durable d) {
            pipeline.durable(d.zxid());
        } else if (e instanceof Disconnected d) {
            pipeline.disconnected(d.connection());
        } else if (e instanceof Task t) {
            t.runnable().run();
        } else if (e instanceof PeerIn p) {
            pipeline.peerMessage(p.from(), p.message(), now);
        } else if (e instanceof PeerUp u) {
            pipeline.peerUp(u.id());
        } else if (e instanceof PeerDown d) {
            pipeline.peerDown(d.id());
        }
    }

    /** What to run (once, on the core thread as it ends) when the pipeline fails: the server stops. */
    public void onFatal(Runnable r) {
        this.onFatal = r;
    }

    public boolean failed() {
        return failure != null;
    }

    /**
     * The round time in milliseconds: monotonic ({@link System#nanoTime}), never the wall clock. Every timer of the
     * pipeline counts on it — replica ticks, session deadlines, held handshakes, forward timeouts — so a jump of
     * the machine's clock neither expires sessions (forward) nor stops the replica's ticks, heartbeats included, for
     * the length of the jump (backward). Txn times alone come from the wall clock ({@link TxnClock}).
     */
    public static long roundClock() {
        return System.nanoTime() / 1_000_000;
    }

    /** Completes once the server may take clients (its replication in service); fails if the core ends before. */
    public CompletableFuture<Void> serving() {
        return serving;
    }
}
