package dev.zkr.recipes;

import dev.zkr.client.CreateMode;
import dev.zkr.client.Stat;
import dev.zkr.client.ZkClient;
import dev.zkr.recipes.internal.ProtectedNames;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** LeaderLatch, fair and unfair: one leader, order, fencing, listeners, failures, no leaks. */
public abstract class LeaderLatchSuite extends RecipeSuite {

    private LeaderLatch latch(ZkClient c, String path, String id, boolean fair) {
        LeaderLatchBuilder b = Recipes.using(c).leaderLatch(path).id(id);
        return (fair ? b.fair() : b.unfair()).start();
    }

    private static long leaders(List<LeaderLatch> latches) {
        return latches.stream().filter(LeaderLatch::isLeader).count();
    }

    @Test
    void fairElectionFollowsArrivalOrder() {
        String p = path("fair");
        ZkClient observer = client();
        List<LeaderLatch> latches = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            latches.add(latch(client(), p, "w" + i, true));
            int n = i + 1;
            eventually("participant " + i + " queued", () -> children(observer, p).size() == n);
        }
        assertTrue(latches.get(0).await(WAIT));
        assertEquals(Optional.of("w0"), latches.get(0).leaderId());
        // participants() reads on w1's server, which may not have applied w2's create yet (on an ensemble)
        eventually("w1 lists every participant", () -> List.of("w0", "w1", "w2").equals(latches.get(1).participants()));
        assertEquals(List.of("w0", "w1", "w2"), latches.get(1).participants());
        long token = latches.get(0).fencingToken();
        assertEquals(1, leaders(latches));
        for (int i = 0; i < 2; i++) {
            latches.get(i).close();
            assertFalse(latches.get(i).isLeader());
            LeaderLatch next = latches.get(i + 1);
            assertTrue(next.await(WAIT));
            assertTrue(next.fencingToken() > token);
            token = next.fencingToken();
            assertEquals(1, leaders(latches));
        }
        latches.get(2).close();
        latches.get(2).close(); // idempotent
        for (LeaderLatch l : latches) {
            assertFalse(l.isLeader());
        }
        eventually("nodes gone", () -> children(observer, p).isEmpty());
    }

    @Test
    void unfairElectionHasOneLeaderAndPassesOnClose() {
        String p = path("unfair");
        List<LeaderLatch> latches = new ArrayList<>();
        List<ZkClient> clients = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ZkClient c = client();
            clients.add(c);
            latches.add(latch(c, p, "u" + i, false));
        }
        eventually("a leader", () -> leaders(latches) == 1);
        LeaderLatch leader = latches.stream().filter(LeaderLatch::isLeader).findFirst().orElseThrow();
        assertEquals(Optional.of(leader.id()), latches.get(0).leaderId());
        eventually("all participants listed", () -> latches.get(0).participants().size() == 3);
        long token = leader.fencingToken();
        leader.close();
        eventually("a new leader", () -> leaders(latches) == 1);
        LeaderLatch next = latches.stream().filter(LeaderLatch::isLeader).findFirst().orElseThrow();
        assertTrue(next.fencingToken() > token);
        for (LeaderLatch l : latches) {
            l.close();
        }
        for (ZkClient c : clients) {
            assertNoWatches(c);
        }
    }

    @Test
    void listenersSeeElectionAndRevocation() {
        String p = path("listeners");
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        LeaderLatch l = Recipes.using(client()).leaderLatch(p).id("solo")
                .onElected(x -> events.add("elected")).onRevoked(x -> events.add("revoked")).start();
        assertTrue(l.await(WAIT));
        eventually("elected reported", () -> events.equals(List.of("elected")));
        l.close();
        eventually("revoked reported", () -> events.equals(List.of("elected", "revoked")));
        assertFalse(l.await(Duration.ofMillis(10)), "a closed latch does not lead");
    }

    @Test
    void awaitTimesOutForAFollower() {
        String p = path("await");
        LeaderLatch leader = latch(client(), p, "a", true);
        assertTrue(leader.await(WAIT));
        ZkClient fc = client();
        LeaderLatch follower = latch(fc, p, "b", true);
        assertFalse(follower.await(Duration.ofMillis(300)));
        follower.close();
        assertNoWatches(fc);
        leader.close();
    }

    @Test
    void awaitAsyncCompletesWhenLeadingAndFailsWhenClosed() throws Exception {
        String p = path("await-async");
        LeaderLatch leader = latch(client(), p, "a", true);
        leader.awaitAsync().get(WAIT.toMillis(), TimeUnit.MILLISECONDS); // at once, or once it leads
        assertTrue(leader.isLeader());
        LeaderLatch follower = latch(client(), p, "b", true);
        eventually("b queued second", () -> leader.participants().size() == 2);
        LeaderLatch other = latch(client(), p, "c", true);
        CompletableFuture<Void> bLeads = follower.awaitAsync();
        CompletableFuture<Void> cancelled = follower.awaitAsync();
        CompletableFuture<Void> cLeads = other.awaitAsync();
        eventually("all queued", () -> leader.participants().size() == 3);
        assertFalse(bLeads.isDone());
        assertTrue(cancelled.cancel(false));
        leader.close();
        bLeads.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertTrue(follower.isLeader());
        assertFalse(cLeads.isDone());
        other.close();
        java.util.concurrent.ExecutionException closed = org.junit.jupiter.api.Assertions.assertThrows(
                java.util.concurrent.ExecutionException.class, () -> cLeads.get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        org.junit.jupiter.api.Assertions.assertInstanceOf(IllegalStateException.class, closed.getCause());
        follower.close();
    }

    @Test
    void leaderSessionExpiryElectsAnotherAndNeverTwo() {
        for (boolean fair : new boolean[] {true, false}) {
            String p = path("expire-leader-" + fair);
            ZkClient a = client();
            ZkClient b = client();
            LeaderLatch la = latch(a, p, "a", fair);
            assertTrue(la.await(WAIT));
            LeaderLatch lb = latch(b, p, "b", fair);
            assertFalse(lb.await(Duration.ofMillis(200)));
            long token = la.fencingToken();
            long oldSession = a.sessionId();
            backend.expireSession(a);
            assertTrue(lb.await(WAIT));
            assertTrue(lb.fencingToken() > token);
            eventually("a has a new session", () -> a.sessionId() != oldSession && a.state().isConnected());
            eventually("a is back in the election", () -> la.participants().contains("a"));
            assertFalse(la.isLeader(), "never two leaders (fair=" + fair + ")");
            assertTrue(lb.isLeader());
            lb.close();
            assertTrue(la.await(WAIT), "a rejoined and leads with its new session");
            assertTrue(la.fencingToken() > token);
            la.close();
            assertNoWatches(a);
            assertNoWatches(b);
        }
    }

    @Test
    void followerSessionExpiryWhileWaitingKeepsOneLeader() {
        String p = path("expire-follower");
        ZkClient a = client();
        ZkClient b = client();
        ZkClient observer = client();
        LeaderLatch la = latch(a, p, "a", true);
        assertTrue(la.await(WAIT));
        LeaderLatch lb = latch(b, p, "b", true);
        eventually("b queued", () -> children(observer, p).size() == 2);
        long old = b.sessionId();
        backend.expireSession(b);
        eventually("b requeued with its new session", () -> b.sessionId() != old
                && children(observer, p).size() == 2);
        assertTrue(la.isLeader());
        assertFalse(lb.isLeader());
        la.close();
        assertTrue(lb.await(WAIT));
        lb.close();
    }

    /**
     * The waiter's session expires after it listed the queue and before it starts watching the predecessor (the
     * window a loaded machine once hit in the fair-election property): the watch is set by the new session, every
     * connection event is over before its listener is there, and only the predecessor's deletion would wake it. It must notice that its
     * node went with the old session and queue again at once, not wait behind a leader that may never go.
     */
    @Test
    void followerWhoseSessionExpiresBeforeItWatchesRequeues() {
        String p = path("expire-before-watch");
        ZkClient a = client();
        ZkClient real = client();
        ZkClient observer = client();
        LeaderLatch la = latch(a, p, "a", true);
        assertTrue(la.await(WAIT));
        CompletableFuture<Long> expired = new CompletableFuture<>();
        ZkClient b = (ZkClient) Proxy.newProxyInstance(ZkClient.class.getClassLoader(),
                new Class<?>[] {ZkClient.class}, (proxy, method, args) -> {
                    if (method.getName().equals("addConnectionStateListener") && !expired.isDone()
                            && StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE).walk(frames ->
                                    frames.anyMatch(f -> f.getDeclaringClass() == NodeWatch.class))) {
                        long old = real.sessionId();
                        backend.expireSession(real);
                        eventually("a new session", () -> real.sessionId() != old && real.state().isConnected());
                        expired.complete(old);
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        LeaderLatch lb = latch(b, p, "b", true);
        eventually("b requeued with its new session", () -> expired.isDone()
                && ownersOf(observer, p).equals(List.of(a.sessionId(), real.sessionId())));
        assertTrue(la.isLeader());
        assertFalse(lb.isLeader());
        la.close();
        assertTrue(lb.await(WAIT));
        lb.close();
        assertNoWatches(real);
    }

    /** The ephemeral owners of the children, in queue order (0 for a child gone meanwhile). */
    private static List<Long> ownersOf(ZkClient c, String path) {
        List<Long> owners = new ArrayList<>();
        for (String child : ProtectedNames.sortBySequence(children(c, path))) {
            Stat s = c.exists(path + "/" + child);
            owners.add(s == null ? 0L : s.ephemeralOwner());
        }
        return owners;
    }

    @Test
    void serverRestartRevokesThenRestoresLeadership() {
        String p = path("restart");
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        LeaderLatch l = Recipes.using(client(Duration.ofSeconds(20))).leaderLatch(p).id("r")
                .onElected(x -> events.add("elected")).onRevoked(x -> events.add("revoked")).start();
        assertTrue(l.await(WAIT));
        long token = l.fencingToken();
        backend.restartServer();
        eventually("revoked while suspended", () -> events.contains("revoked"));
        assertTrue(l.await(WAIT));
        assertEquals(token, l.fencingToken(), "same session, same node");
        l.close();
    }

    @Test
    void lostCreateResponseLeavesNoOrphan() {
        String p = path("lost-create");
        ZkClient observer = client();
        LostResponseClient flaky = new LostResponseClient(client()).loseCreates(1, x -> x.contains("/_c_"));
        LeaderLatch l = latch(flaky, p, "f", true);
        assertTrue(l.await(WAIT));
        assertEquals(1, flaky.lost());
        assertEquals(1, children(observer, p).size());
        LeaderLatch other = latch(observer, p, "o", true);
        l.close();
        assertTrue(other.await(WAIT));
        other.close();
    }

    /**
     * A follower closed while it is still finding out whether its lost create was applied (the node is there, the
     * follower has not found it yet): the node must still go, or it would block everyone queued after it for as
     * long as the session lives (found by the leader selector property, shared with every fair recipe).
     */
    @Test
    void followerClosedWhileRecoveringALostCreateLeavesNoNode() {
        String p = path("lost-create-closed");
        ZkClient observer = client();
        LeaderLatch a = latch(client(), p, "a", true);
        assertTrue(a.await(WAIT));
        LostResponseClient flaky = new LostResponseClient(client()).loseCreates(1, x -> x.contains("/_c_"));
        LeaderLatch f = latch(flaky, p, "f", true);
        eventually("f's create applied", () -> flaky.lost() == 1 && children(observer, p).size() == 2);
        f.close();
        eventually("only a's node left", () -> children(observer, p).size() == 1);
        a.close();
        eventually("nothing left", () -> children(observer, p).isEmpty());
    }

    @Test
    void unfairLeaderWhoseDeleteResponseIsLostNeverDeletesTheNextLeadersNode() throws Exception {
        String p = path("unfair-lost-delete");
        ZkClient ac = client();
        ZkClient bc = client();
        LostResponseClient flaky = new LostResponseClient(ac);
        LeaderLatch a = latch(flaky, p, "a", false);
        assertTrue(a.await(WAIT));
        CompletableFuture<Void> bLeads = new CompletableFuture<>();
        LeaderLatch b = Recipes.using(bc).leaderLatch(p).id("b").unfair()
                .onElected(l -> bLeads.complete(null)).start();
        eventually("b takes part", () -> a.participants().size() == 2);
        flaky.loseNextDelete(bLeads); // a's delete goes through; a hears ConnectionLoss only once b leads
        a.close(); // a's retry must see that <path>/leader is b's now and leave it alone
        assertEquals(1, flaky.lost());
        bLeads.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertTrue(b.isLeader());
        dev.zkr.client.Stat leaderNode = bc.exists(p + "/leader");
        assertNotNull(leaderNode, "a's retried delete removed b's leader node");
        assertEquals(bc.sessionId(), leaderNode.ephemeralOwner());
        b.close();
        assertNoWatches(ac);
        assertNoWatches(bc);
    }

    @Test
    void closeWhileDisconnectedLeavesNoNodeAndNoWatch() throws Exception {
        String p = path("close-disconnected");
        ZkClient lc = client(Duration.ofSeconds(30));
        ZkClient fc = client(Duration.ofSeconds(30));
        LeaderLatch leader = latch(lc, p, "l", true);
        assertTrue(leader.await(WAIT));
        LeaderLatch follower = latch(fc, p, "f", true);
        eventually("follower queued", () -> children(lc, p).size() == 2);
        eventually("follower watches the leader", () -> !fc.watchedPaths().isEmpty());
        backend.stopServer();
        try {
            eventually("both disconnected", () -> !lc.state().isConnected() && !fc.state().isConnected());
            // the leader's delete is sent by close() itself, the follower's by its runner: both fail for now
            Future<?> closingLeader = pool.submit(leader::close);
            Future<?> closingFollower = pool.submit(follower::close);
            closingLeader.get(30, TimeUnit.SECONDS);
            closingFollower.get(30, TimeUnit.SECONDS);
            assertFalse(leader.isLeader());
            assertFalse(follower.isLeader());
        } finally {
            backend.startServer();
        }
        eventually("the same sessions are back", () -> lc.state().isConnected() && fc.state().isConnected());
        ZkClient observer = client();
        eventually("no node left behind (the deletes went on after the reconnect)",
                () -> children(observer, p).isEmpty());
        assertNoWatches(lc);
        assertNoWatches(fc);
    }

    @Test
    void closingEachLeaderAsSoonAsItIsElectedKeepsOrderAndLeavesNothing() throws Exception {
        String p = path("quick-handover");
        int participants = 3;
        int rounds = 15;
        ZkClient observer = client();
        ZkClient[] clients = new ZkClient[participants];
        LeaderLatch[] latches = new LeaderLatch[participants];
        List<List<String>> events = new ArrayList<>();
        BlockingQueue<Integer> elected = new LinkedBlockingQueue<>();
        for (int i = 0; i < participants; i++) {
            clients[i] = client();
            events.add(Collections.synchronizedList(new ArrayList<>()));
            latches[i] = quickLatch(clients[i], p, i, events.get(i), elected);
        }
        long token = -1;
        for (int r = 0; r < rounds; r++) {
            Integer leader = elected.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertNotNull(leader, "a leader in round " + r);
            long t = latches[leader].fencingToken();
            assertTrue(t > token, "fencing tokens increase: " + t + " after " + token);
            token = t;
            long leaders = 0;
            for (LeaderLatch l : latches) {
                leaders += l.isLeader() ? 1 : 0;
            }
            assertTrue(leaders <= 1, "never two leaders");
            latches[leader].close(); // at once: its runner may still be on its way out of the wait
            assertFalse(latches[leader].isLeader());
            List<String> seen = events.get(leader);
            eventually("revoked reported after elected", () -> seen.size() == 2);
            assertEquals(List.of("elected", "revoked"), List.copyOf(seen));
            seen.clear();
            latches[leader] = quickLatch(clients[leader], p, leader, seen, elected);
        }
        for (LeaderLatch l : latches) {
            l.close();
        }
        eventually("every node deleted", () -> children(observer, p).isEmpty());
        for (ZkClient c : clients) {
            assertNoWatches(c);
        }
    }

    private static LeaderLatch quickLatch(ZkClient c, String p, int i, List<String> events,
                                          BlockingQueue<Integer> elected) {
        return Recipes.using(c).leaderLatch(p).id("q" + i)
                .onElected(l -> {
                    events.add("elected");
                    elected.add(i);
                })
                .onRevoked(l -> events.add("revoked"))
                .start();
    }

    @Test
    void listenersNeverRunOnTheClientEventThread() throws Exception {
        String p = path("listener-threads");
        ZkClient lc = client();
        LeaderLatch first = latch(lc, p, "first", true);
        assertTrue(first.await(WAIT));
        ZkClient dc = client();
        ZkClient ic = client();
        Thread defaultEvents = eventThreadOf(dc);
        Thread inlineEvents = eventThreadOf(ic);
        CompletableFuture<Thread> onDefault = new CompletableFuture<>();
        CompletableFuture<Thread> onInline = new CompletableFuture<>();
        LeaderLatch second = Recipes.using(dc).leaderLatch(p).id("default")
                .onElected(l -> onDefault.complete(Thread.currentThread())).start();
        ZkClient observer = client();
        eventually("second queued", () -> children(observer, p).size() == 2);
        LeaderLatch third = Recipes.using(ic).leaderLatch(p).id("inline").listenerExecutor(Runnable::run)
                .onElected(l -> onInline.complete(Thread.currentThread())).start();
        eventually("third queued", () -> children(observer, p).size() == 3);
        first.close();
        assertNotSame(defaultEvents, onDefault.get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        second.close();
        assertNotSame(inlineEvents, onInline.get(WAIT.toMillis(), TimeUnit.MILLISECONDS),
                "a caller-runs listener executor is never driven from the event thread");
        third.close();
        assertNoWatches(dc);
        assertNoWatches(ic);
    }

    /** The thread that runs the client's watchers (learnt from a watch that fires). */
    private Thread eventThreadOf(ZkClient c) throws Exception {
        String probe = path("probe-" + System.nanoTime());
        CompletableFuture<Thread> thread = new CompletableFuture<>();
        c.existsAsync(probe, e -> thread.complete(Thread.currentThread())).get(10, TimeUnit.SECONDS);
        c.create(probe, new byte[0], CreateMode.EPHEMERAL, dev.zkr.client.Parents.PERSISTENT);
        Thread t = thread.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        c.delete(probe, -1);
        return t;
    }
}
