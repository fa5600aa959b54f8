package dev.zkr.recipes;

import dev.zkr.client.Children;
import dev.zkr.client.ClientSupport;
import dev.zkr.client.ConnectionStateListener;
import dev.zkr.client.Created;
import dev.zkr.client.NodeData;
import dev.zkr.client.Op;
import dev.zkr.client.OpResult;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Parents;
import dev.zkr.client.Stat;
import dev.zkr.client.Watcher;
import dev.zkr.client.WatcherType;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The classic double barrier. {@link #enter()} creates this member's ephemeral node and returns once
 * {@code parties} members are present (the last to arrive creates the {@code ready} node, which everyone else
 * watches: a broadcast by design). {@link #leave()} deletes the member node and returns once every member has
 * left or died: only the lowest member watches the highest, the others watch the lowest (no herd).
 *
 * <p>Round trips (requests of one session are answered in order, so pipelined reads see the session's writes):
 * <ul>
 * <li>enter: one pipelined round trip — {@code create(path)} (a container; NodeExists is fine),
 * {@code create(member)}, {@code exists(ready, watch)}, {@code getChildren}. The last to arrive then creates
 * {@code ready} and marks the lowest member it listed (a {@code setData} that bumps that node's version) in one
 * multi; the creation wakes everyone else through their exists watch (no re-check).
 * <li>leave: one pipelined round trip — {@code multi(check(own, version 0), delete(own))}, {@code getChildren},
 * {@code getData(ready, watch)}: nobody has to list before deleting, since only the marked lowest member fails
 * the check and keeps its node. The others then set their watch on the lowest ({@code getData}, one more round
 * trip, off the critical path) and wait for {@code ready} to go. The lowest's listing is answered after the
 * deletes that were in flight before its check; when it shows the lowest alone, it deletes {@code ready} and
 * itself in one multi, which wakes everyone (no re-listing). Otherwise it watches the highest, and each time that
 * one goes it lists again and watches the next highest in the same round trip.
 * </ul>
 * Wake-ups of the caller's thread are what the critical path pays for besides round trips, so: a waiting member
 * is woken once, by {@code ready}'s creation, unless its enter's answers need it; the last to arrive creates
 * {@code ready} from the client's callback thread as soon as its listing is answered; the lowest sends its
 * last-out multi the same way, and when woken by the highest's deletion sends its next look from the watcher.
 *
 * <p>The mark is only a shortcut, the listing decides: a marked member that is not the lowest present deletes its
 * node after all. If the marked member died before the others left, nobody keeps a node: each member deletes its
 * own and watches the lowest present, and the one whose listing comes back empty deletes {@code ready}.
 *
 * <p>A member that dies is removed with its session: it counts as left. The last member to leave deletes the
 * ready node so the path can be reused for the next round (start a round only after the previous one left).
 * Not thread-safe: one barrier object per member.
 */
public final class DoubleBarrier implements AutoCloseable {

    static final String READY = "ready";
    private static final byte[] EMPTY = new byte[0];
    /** The data the ready node's creator sets on the lowest member's node (its version becomes 1). */
    private static final byte[] LOWEST = "lowest".getBytes(StandardCharsets.UTF_8);

    private final ZkClient client;
    private final String path;
    private final String readyPath;
    private final String memberPath;
    private final String memberId;
    private final int parties;
    private volatile long memberSession;
    private volatile boolean closed;

    DoubleBarrier(ZkClient client, String path, int parties, String memberId) {
        this.client = client;
        this.path = path;
        this.parties = parties;
        this.memberId = memberId;
        this.readyPath = ZkPaths.join(path, READY);
        this.memberPath = ZkPaths.join(path, memberId);
    }

    /** Enters and waits until all parties have entered. Honours interrupts (the member node is removed). */
    public void enter() {
        enter(Deadline.NONE);
    }

    /** Enters and waits at most {@code timeout}; false on timeout (this member's node is then removed). */
    public boolean enter(Duration timeout) {
        return enter(Deadline.after(timeout));
    }

    private boolean enter(Deadline deadline) {
        checkOpen();
        boolean entered = false;
        boolean createParent = true;
        try {
            while (true) {
                Signal signal = new Signal();
                AtomicBoolean fired = new AtomicBoolean();
                AtomicBoolean created = new AtomicBoolean();
                Watcher watcher = e -> {
                    if (e.type() == WatchedEvent.Type.NODE_CREATED) {
                        created.set(true);
                    }
                    fired.set(true);
                    signal.fire();
                };
                ConnectionStateListener onState = (c, s) -> signal.fire();
                client.addConnectionStateListener(onState);
                try {
                    long session = client.sessionId();
                    CompletableFuture<Created> mine = null;
                    if (memberSession != session) {
                        if (createParent) {
                            createParent = false;
                            client.createAsync(path, EMPTY, CreateMode.CONTAINER); // answered before ours: ignored
                        }
                        mine = client.createAsync(memberPath, EMPTY, CreateMode.EPHEMERAL);
                    }
                    CompletableFuture<Stat> readyF = client.existsAsync(readyPath, watcher);
                    CompletableFuture<Children> listing = client.getChildrenAsync(path, null);
                    CompletableFuture<Boolean> opened = openIfComplete(mine, readyF, listing);
                    CompletableFuture<Created> ours = mine;
                    CompletableFuture<Stat> readyAnswer = readyF;
                    CompletableFuture<Children> listingAnswer = listing;
                    CompletableFuture<Boolean> openAnswer = opened;
                    answered(opened).thenRun(() -> {
                        if (!waiting(ours, readyAnswer, listingAnswer, openAnswer)) {
                            signal.fire(); // the answers need us; otherwise only ready's creation wakes us
                        }
                    });
                    try {
                        signal.await(deadline); // if it timed out, the answers decide (and we wait no more)
                        ClientSupport.await(answered(opened)); // and so the requests before it
                    } catch (ZkException.Interrupted e) {
                        removeWhenRead(readyF, readyPath, watcher); // registered later, if still in flight
                        throw e;
                    }
                    if (mine != null) {
                        Boolean listed = created(mine, session, deadline);
                        if (listed == null) {
                            continue; // create again (the watch, if set, is removed below)
                        }
                        if (!listed) { // made with its parents after the pipelined reads: read again, same watch
                            readyF = client.existsAsync(readyPath, watcher);
                            listing = client.getChildrenAsync(path, null);
                            opened = CompletableFuture.completedFuture(false);
                        }
                    }
                    Stat ready = Connection.watchedRead(client, readyF, readyPath, watcher, WatcherType.DATA);
                    List<String> members = membersOf(ClientSupport.await(listing).names());
                    if (ready != null) {
                        entered = true; // the barrier is already open (our watch on it is removed below)
                        return true;
                    }
                    if (members.size() >= parties) {
                        if (!ClientSupport.await(opened)) {
                            ClientSupport.await(open(members));
                        } // the creation reaches our exists watch before the response: nothing to remove
                        entered = true;
                        return true;
                    }
                    if (!signal.await(deadline)) {
                        return false;
                    }
                    if (created.get()) {
                        entered = true;
                        return true;
                    }
                    // a connection change or another event: look again
                } catch (ZkException.NoNode e) {
                    // the barrier node went (everyone left an earlier round): make ours again
                    memberSession = 0;
                } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
                    if (!Connection.recover(client, deadline)) {
                        return false;
                    }
                } catch (ZkException.SessionExpired e) {
                    if (!Connection.awaitConnected(client, deadline)) {
                        return false;
                    }
                } finally {
                    client.removeConnectionStateListener(onState);
                    // (fired, yet still registered: seen rarely on zkr when ready is created as the exists is
                    // answered; a local look, no request, in the normal case)
                    if (!fired.get() || client.watchedPaths().contains(readyPath)) {
                        Connection.removeWatchQuietly(client, readyPath, watcher, WatcherType.DATA);
                    }
                }
            }
        } finally {
            if (!entered) {
                Connection.deleteQuietly(client, memberPath, memberSession);
            }
        }
    }

    /**
     * Settles our pipelined member create: true if our node is there and the reads pipelined after it saw it,
     * false if it had to be made again with its parents (read again), null if it must be created again. A
     * NodeExists may be our own create whose response was lost.
     */
    private Boolean created(CompletableFuture<Created> mine, long session, Deadline deadline) {
        try {
            ClientSupport.await(mine);
            memberSession = session;
            return true;
        } catch (ZkException.NodeExists e) {
            Stat stat = client.exists(memberPath);
            if (stat != null && stat.ephemeralOwner() == session) {
                memberSession = session; // a create whose response was lost
                return true;
            }
            if (stat != null) {
                throw new IllegalStateException("member id " + memberId + " is in use at " + path);
            }
            return null; // it went meanwhile: create again
        } catch (ZkException.NoNode e) {
            ensureMember(deadline); // an ancestor of the barrier is missing too
            return false;
        }
    }

    /**
     * Once the pipelined enter is answered: if our node is there, the barrier not open yet and the listing shows
     * every party, opens it right away from the client's callback thread (sparing the critical path a wake-up of
     * ours). True if it did; false if there was nothing to open or the look itself failed (the caller sorts it
     * out from the same answers).
     */
    private CompletableFuture<Boolean> openIfComplete(CompletableFuture<Created> mine, CompletableFuture<Stat> ready,
                                                      CompletableFuture<Children> listing) {
        return listing.handle((children, error) -> {
            if (error != null || (mine != null && mine.isCompletedExceptionally())
                    || ready.isCompletedExceptionally() || ready.getNow(null) != null) {
                return CompletableFuture.completedFuture(false);
            }
            List<String> members = membersOf(children.names());
            if (members.size() < parties) {
                return CompletableFuture.completedFuture(false);
            }
            return open(members).thenApply(v -> true);
        }).thenCompose(f -> f);
    }

    /** True if a pipelined enter was answered as expected while not all have arrived: we only wait for ready. */
    private boolean waiting(CompletableFuture<Created> mine, CompletableFuture<Stat> ready,
                            CompletableFuture<Children> listing, CompletableFuture<Boolean> opened) {
        return (mine == null || !mine.isCompletedExceptionally()) && !ready.isCompletedExceptionally()
                && ready.join() == null && !listing.isCompletedExceptionally()
                && membersOf(listing.join().names()).size() < parties
                && !opened.isCompletedExceptionally() && !opened.join();
    }

    /**
     * Opens the barrier: creates {@code ready} and marks the lowest member, in one multi. If the lowest went
     * meanwhile, {@code ready} is created unmarked (leave then falls back to listing first).
     */
    private CompletableFuture<Void> open(List<String> members) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        client.multiAsync(List.of(Op.create(readyPath, EMPTY, CreateMode.PERSISTENT),
                Op.setData(ZkPaths.join(path, members.get(0)), LOWEST, -1))).whenComplete((r, error) -> {
                    if (error != null && ClientSupport.unwrap(error) instanceof ZkException.NoNode) {
                        client.createAsync(readyPath, EMPTY, CreateMode.PERSISTENT)
                                .whenComplete((c, e) -> settleOpen(done, e));
                    } else {
                        settleOpen(done, error);
                    }
                });
        return done;
    }

    /** Completes an opening: done unless it failed otherwise than with NodeExists (someone else opened it). */
    private static void settleOpen(CompletableFuture<Void> done, Throwable error) {
        RuntimeException cause = error == null ? null : ClientSupport.unwrap(error);
        if (cause == null || cause instanceof ZkException.NodeExists) {
            done.complete(null);
        } else {
            done.completeExceptionally(cause);
        }
    }

    /** Leaves and waits until every member has left or died. Honours interrupts. */
    public void leave() {
        leave(Deadline.NONE);
    }

    /**
     * Leaves and waits at most {@code timeout} for the others; false on timeout (this member has left all the
     * same, even the lowest, which otherwise stays until the others are gone).
     */
    public boolean leave(Duration timeout) {
        return leave(Deadline.after(timeout));
    }

    private boolean leave(Deadline deadline) {
        checkOpen();
        ReadyWatch onReady = new ReadyWatch(); // fires when ready goes: everyone has left
        boolean out = false;
        try {
            out = leave(onReady, deadline);
            return out;
        } finally {
            onReady.remove();
            if (!out) {
                long owner = memberSession; // timed out or interrupted: leave anyway (the lowest too)
                memberSession = 0;
                if (owner != 0) {
                    Connection.deleteQuietly(client, memberPath, owner);
                }
            }
        }
    }

    private boolean leave(ReadyWatch onReady, Deadline deadline) {
        Departure departure = new Departure();
        List<String> previous = List.of(); // the last listing of this leave: whom to watch, guessed from it
        Look successor = null; // a look the last one sent from the callback thread, not yet run
        try {
            while (true) {
                if (onReady.gone.get()) {
                    if (successor != null) {
                        successor.close();
                    }
                    return true;
                }
                Look look = successor != null ? successor : new Look(onReady, departure, previous);
                successor = null;
                try {
                    Boolean done = look.run(deadline);
                    if (done != null) {
                        return done;
                    }
                    previous = look.next();
                    successor = look.takeSuccessor();
                } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
                    if (!Connection.recover(client, deadline)) {
                        return false;
                    }
                    previous = List.of();
                } catch (ZkException.SessionExpired e) {
                    if (!Connection.awaitConnected(client, deadline)) {
                        return false;
                    }
                } finally {
                    look.close();
                }
            }
        } catch (ZkException.ConnectionLoss e) {
            return false; // the deadline passed while disconnected
        }
    }

    /** How this member departs: with the mark check first, then (if a lower member is present) plainly. */
    private static final class Departure {
        /** We are the lowest present: keep our node until the others are gone. */
        volatile boolean stay;
        /** Depart only if our node is not marked ({@code check(own, version 0)}); once that failed, plainly. */
        volatile boolean checked = true;
    }

    /** What a look's answers call for. */
    private enum Next { DONE, LAST_OUT, LOOK_AGAIN, WAIT }

    /**
     * A look's answers, worked out on the client's callback thread as soon as the last one is in: what to do
     * next, whether we are still present, the member we wait for (WAIT) and the last-out multi if already sent.
     */
    private record Outcome(Next next, boolean present, List<String> members, String target,
                           CompletableFuture<List<OpResult>> sent) {
    }

    /**
     * One look of a leave, one pipelined round trip sent when the look is made: our departure (if due), the
     * listing, the watched read of {@code ready} and, when the last listing tells whom we will wait for, the
     * watched read of that member. The answers are worked out on the client's callback thread, which also sets
     * the watch on the member to wait for (one more round trip if it could not be guessed) and sends the last-out
     * multi: the caller's thread only wakes when there is something for it to do or the wait is over. A lowest
     * member woken by the highest's deletion makes its next look at once from the watcher, likewise.
     */
    private final class Look {
        private final ReadyWatch onReady;
        private final Departure departure;
        private final Signal signal = new Signal();
        private final ConnectionStateListener onState = (c, s) -> signal.fire();
        private final boolean wasPresent;
        private final CompletableFuture<?> depart;
        private final CompletableFuture<Children> listing;
        private final CompletableFuture<NodeData> ready;
        private final CompletableFuture<Outcome> outcome;
        /** The watched read of the member we wait for (its watch is ours to clean up), if any; guarded by this. */
        private MemberWatch watch;
        private boolean keepWatch;
        /** The members to guess from in the next look. */
        private volatile List<String> next;
        /** The next look, made when the highest we (the lowest) wait for goes; guarded by this look. */
        private Look successor;
        private boolean closed;
        private boolean handedOver;

        Look(ReadyWatch onReady, Departure departure, List<String> previous) {
            this.onReady = onReady;
            this.departure = departure;
            this.next = previous;
            onReady.signal = signal;
            client.addConnectionStateListener(onState);
            long owner = memberSession;
            boolean present = owner != 0 && owner == client.sessionId();
            wasPresent = present;
            boolean stay = departure.stay;
            if (present && !stay) {
                depart = departure.checked
                        ? client.multiAsync(List.of(Op.check(memberPath, 0), Op.delete(memberPath, -1)))
                        : client.deleteAsync(memberPath, -1);
            } else {
                depart = null;
            }
            listing = client.getChildrenAsync(path, null);
            ready = client.getDataAsync(readyPath, onReady);
            onReady.read = ready;
            String guess = present && stay ? highestOther(previous)
                    : !present || !departure.checked ? lowestOther(previous) : null;
            CompletableFuture<?> last = ready;
            if (guess != null) {
                synchronized (this) {
                    watch = new MemberWatch(guess, signal);
                    last = watch.read;
                }
            }
            outcome = last.handle((v, e) -> settle());
        }

        /** On the callback thread, once every answer is in: works them out; wakes the caller unless it waits. */
        private synchronized Outcome settle() {
            Outcome o;
            try {
                o = decide();
            } catch (RuntimeException e) {
                signal.fire();
                throw e;
            }
            if (o.next() != Next.WAIT) {
                signal.fire();
            }
            return o;
        }

        private Outcome decide() {
            boolean present = wasPresent;
            if (depart != null) {
                Throwable failed = failure(depart);
                if (failed == null) {
                    memberSession = 0;
                    present = false;
                } else if (failed instanceof ZkException.BadVersion || failed instanceof ZkException.NoNode) {
                    departure.checked = false; // marked (or our node went): the listing decides
                } else {
                    throw (RuntimeException) failed;
                }
            }
            List<String> members = members(listing);
            next = members;
            boolean readyThere = found(ready);
            if (readyThere) {
                onReady.set = true;
            }
            if (present && !members.contains(memberId)) {
                present = false; // gone with a departure whose response was lost
                memberSession = 0;
            }
            if (onReady.gone.get()) {
                keepWatch = !present; // the lowest we watch went before ready, or with it: its watch fires too
                return new Outcome(Next.DONE, present, members, null, null);
            }
            String target;
            if (!present) {
                departure.stay = false;
                if (!readyThere) {
                    return new Outcome(Next.DONE, false, members, null, null); // everyone has left
                }
                if (members.isEmpty()) {
                    return new Outcome(Next.LAST_OUT, false, members, null, null);
                }
                target = members.get(0);
            } else if (members.size() == 1) {
                return new Outcome(Next.LAST_OUT, true, members, null, memberSession == client.sessionId()
                        ? client.multiAsync(List.of(Op.delete(readyPath, -1), Op.delete(memberPath, -1))) : null);
            } else if (members.get(0).equals(memberId)) {
                departure.stay = true;
                target = members.get(members.size() - 1);
            } else {
                departure.stay = false; // a lower member is present: depart plainly
                return new Outcome(Next.LOOK_AGAIN, true, members, null, null);
            }
            if (closed) {
                return new Outcome(Next.LOOK_AGAIN, present, members, null, null); // abandoned: arm nothing
            }
            if (watch == null || !watch.member.equals(target) || watch.read.isCompletedExceptionally()) {
                unwatch(); // no guess, or a wrong one (rare: a member we did not list came in)
                watch = new MemberWatch(target, signal); // if it finds nothing (or fails) it wakes us
                watch.read.whenComplete((d, e) -> {
                    if (e != null) {
                        signal.fire();
                    }
                });
            }
            if (present) {
                watch.onDeletion = this::lookAgainAtOnce;
            }
            return new Outcome(Next.WAIT, present, members, target, null);
        }

        /** True or false when the leave is done (false: timed out); null to look again. */
        Boolean run(Deadline deadline) {
            boolean woke = signal.await(deadline);
            Outcome o = ClientSupport.await(outcome); // the answers are in (if we timed out, they still decide)
            switch (o.next()) {
                case DONE:
                    return true;
                case LAST_OUT:
                    lastOut(o.present(), deadline, o.sent());
                    return true;
                case LOOK_AGAIN:
                    return null;
                default:
                    break;
            }
            if (!woke) {
                return false;
            }
            MemberWatch target;
            synchronized (this) {
                target = watch;
            }
            if (onReady.gone.get()) {
                synchronized (this) {
                    keepWatch = !o.present();
                }
                return true;
            }
            if (target.read.isCompletedExceptionally()) {
                return null; // it went before our read: look again
            }
            if (target.fired.get()) {
                List<String> rest = new ArrayList<>(o.members());
                rest.remove(o.target());
                next = rest;
            }
            return null; // the target left or died, or the connection changed: look again
        }

        List<String> next() {
            return next;
        }

        /** On the callback thread, when the highest we wait for (as the lowest) is deleted: the next look. */
        private synchronized void lookAgainAtOnce(String gone) {
            if (closed) {
                return;
            }
            List<String> rest = new ArrayList<>(next);
            rest.remove(gone);
            next = rest;
            successor = new Look(onReady, departure, rest);
        }

        /** The look made at once when our target went, now the caller's to run and close; null if none. */
        synchronized Look takeSuccessor() {
            handedOver = true;
            return successor;
        }

        private void unwatch() {
            if (watch != null) {
                watch.drop();
                watch = null;
            }
        }

        /**
         * Removes the state listener and a watch on the target that has not fired (unless it surely will), and a
         * successor made just as the look was abandoned.
         */
        void close() {
            client.removeConnectionStateListener(onState);
            Look orphan;
            synchronized (this) {
                closed = true;
                if (!keepWatch) {
                    unwatch();
                }
                orphan = handedOver ? null : successor;
            }
            if (orphan != null) {
                orphan.close();
            }
        }
    }

    /** A watched read of one member's node, waking a look's signal when it fires. */
    private final class MemberWatch implements Watcher {
        final String member;
        final AtomicBoolean fired = new AtomicBoolean();
        final CompletableFuture<NodeData> read;
        private final Signal signal;

        MemberWatch(String member, Signal signal) {
            this.member = member;
            this.signal = signal;
            this.read = client.getDataAsync(ZkPaths.join(path, member), this);
        }

        /** Called (before the wake-up) when the node is deleted, if set. */
        volatile Consumer<String> onDeletion;

        @Override
        public void process(WatchedEvent e) {
            fired.set(true);
            Consumer<String> then = onDeletion;
            try {
                if (then != null && e.type() == WatchedEvent.Type.NODE_DELETED) {
                    then.accept(member);
                }
            } finally {
                signal.fire();
            }
        }

        /**
         * Removes the watch unless it fired (or the read found nothing), without waiting: it goes from the client's
         * registry at once (or when the read in flight registers it), the server is told in the background.
         */
        void drop() {
            if (!fired.get()) {
                removeWhenRead(read, ZkPaths.join(path, member), this);
            }
        }
    }

    private String lowestOther(List<String> members) {
        for (String m : members) {
            if (!m.equals(memberId)) {
                return m;
            }
        }
        return null;
    }

    private String highestOther(List<String> members) {
        for (int i = members.size() - 1; i >= 0; i--) {
            if (!members.get(i).equals(memberId)) {
                return members.get(i);
            }
        }
        return null;
    }

    private static Throwable failure(CompletableFuture<?> f) {
        try {
            f.join();
            return null;
        } catch (RuntimeException e) {
            return ClientSupport.unwrap(e);
        }
    }

    /**
     * The last one out: deletes {@code ready} and its node (if present) together; {@code ready} first, so the
     * others' watches on it fire before their watches on our node. {@code sent}: that multi if already sent.
     */
    private void lastOut(boolean present, Deadline deadline, CompletableFuture<List<OpResult>> sent) {
        long owner = memberSession;
        memberSession = 0;
        if (present && owner == client.sessionId()) {
            try {
                if (sent == null || !settled(sent, deadline)) {
                    Connection.retrying(client, deadline,
                            () -> client.multi(List.of(Op.delete(readyPath, -1), Op.delete(memberPath, -1))));
                }
                return;
            } catch (ZkException.NoNode e) {
                // ready (or our node) is gone already: delete what is left below
                deleteMember(owner, deadline);
            }
        }
        try {
            client.delete(readyPath, -1);
        } catch (ZkException.NoNode | ZkException.ConnectionLoss e) {
            // already gone, or someone else will
        }
    }

    /** Awaits a request already sent; false if its answer was lost (the connection is back: send it again). */
    private boolean settled(CompletableFuture<?> sent, Deadline deadline) {
        try {
            ClientSupport.await(sent);
            return true;
        } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
            if (!Connection.recover(client, deadline)) {
                throw e;
            }
            return false;
        }
    }

    /**
     * One leave's watch on {@code ready}: registered again (the same watcher: still one watch) on every look,
     * kept across them, removed when the leave ends if it never fired.
     */
    private final class ReadyWatch implements Watcher {
        final AtomicBoolean gone = new AtomicBoolean();
        volatile Signal signal;
        volatile boolean set;
        volatile CompletableFuture<NodeData> read;

        @Override
        public void process(WatchedEvent e) {
            set = false;
            if (e.type() == WatchedEvent.Type.NODE_DELETED) {
                gone.set(true);
            }
            Signal s = signal;
            if (s != null) {
                s.fire();
            }
        }

        void remove() {
            if (gone.get()) {
                return;
            }
            CompletableFuture<NodeData> last = read;
            if (last != null && !last.isDone()) {
                removeWhenRead(last, readyPath, this); // an interrupted look: the read registers its watch later
            } else if (set) {
                Connection.removeWatchQuietly(client, readyPath, this, WatcherType.DATA);
            }
        }
    }

    /** Removes the watch a read sets (now, or once it is registered if the read is in flight) unless it failed. */
    private void removeWhenRead(CompletableFuture<?> read, String node, Watcher watcher) {
        read.whenComplete((d, err) -> {
            if (err == null) {
                client.removeWatchesAsync(node, watcher, WatcherType.DATA, true).exceptionally(x -> null);
            }
        });
    }

    /**
     * A future completed (normally) once the given one is answered either way: waiting for the last request of a
     * pipeline waits for all of them (one session's requests are answered in order), with one wake-up.
     */
    private static CompletableFuture<Void> answered(CompletableFuture<?> last) {
        return last.handle((v, e) -> null);
    }

    /** True if the read found the node (a watch is then set), false on NoNode. */
    private static boolean found(CompletableFuture<NodeData> read) {
        try {
            ClientSupport.await(read);
            return true;
        } catch (ZkException.NoNode e) {
            return false;
        }
    }

    /** Member ids of a listing, sorted; none if the barrier node is gone. */
    private static List<String> members(CompletableFuture<Children> listing) {
        try {
            return membersOf(ClientSupport.await(listing).names());
        } catch (ZkException.NoNode e) {
            return List.of();
        }
    }

    private static List<String> membersOf(List<String> children) {
        List<String> names = new ArrayList<>(children);
        names.remove(READY);
        names.sort(null);
        return names;
    }

    /** Creates our ephemeral member node unless our current session already owns it. */
    private void ensureMember(Deadline deadline) {
        long session = client.sessionId();
        if (memberSession == session) {
            return;
        }
        while (true) {
            try {
                client.create(memberPath, new byte[0], CreateMode.EPHEMERAL, Parents.CONTAINER);
                memberSession = session;
                return;
            } catch (ZkException.NodeExists e) {
                Stat stat = client.exists(memberPath);
                if (stat != null && stat.ephemeralOwner() == client.sessionId()) {
                    memberSession = stat.ephemeralOwner(); // a create whose response was lost
                    return;
                }
                if (stat != null) {
                    throw new IllegalStateException("member id " + memberId + " is in use at " + path);
                }
            } catch (ZkException.ConnectionLoss | ZkException.OperationTimeout e) {
                if (!Connection.recover(client, deadline)) {
                    throw e;
                }
            }
        }
    }

    private void deleteMember(long owner, Deadline deadline) {
        if (owner == client.sessionId()) {
            try {
                Connection.retrying(client, deadline, () -> client.delete(memberPath, -1));
            } catch (ZkException.NoNode e) {
                // gone already
            }
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("barrier closed");
        }
    }

    public String path() {
        return path;
    }

    public String memberId() {
        return memberId;
    }

    public int parties() {
        return parties;
    }

    /** Removes this member's node if present. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        Connection.deleteQuietly(client, memberPath, memberSession);
    }
}
