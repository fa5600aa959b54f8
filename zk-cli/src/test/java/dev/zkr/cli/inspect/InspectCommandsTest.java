package dev.zkr.cli.inspect;

import dev.zkr.cli.Cli;
import dev.zkr.cli.Cli.Result;
import dev.zkr.client.ZkClient;
import dev.zkr.recipes.AcknowledgedQueue;
import dev.zkr.recipes.DistributedCounter;
import dev.zkr.recipes.DistributedLock;
import dev.zkr.recipes.DoubleBarrier;
import dev.zkr.recipes.GroupMembership;
import dev.zkr.recipes.LeaderLatch;
import dev.zkr.recipes.LockLease;
import dev.zkr.recipes.QueueItem;
import dev.zkr.recipes.ReadWriteLock;
import dev.zkr.recipes.Recipes;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static dev.zkr.cli.Cli.zkr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Recipe inspection end to end: real recipes of zk-recipes on a real zkr server, each participant its own
 * session, and {@code zkr locks|leader|barrier|group|queue|counter} reading what they wrote.
 */
class InspectCommandsTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    private static TestEnsemble ensemble;
    private static String server;
    private static final List<ZkClient> clients = new ArrayList<>();
    private static final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeAll
    static void start() {
        ensemble = TestEnsemble.builder().start();
        server = ensemble.connectString();
    }

    @AfterAll
    static void stop() {
        threads.shutdownNow();
        ensemble.close();
    }

    private static ZkClient client() {
        ZkClient c = ensemble.newClient(Duration.ofSeconds(10));
        clients.add(c);
        return c;
    }

    private static String hex(long session) {
        return "0x" + Long.toHexString(session);
    }

    private static Result ok(Result r) {
        assertEquals(0, r.exit(), r::toString);
        assertEquals("", r.err(), r::toString);
        return r;
    }

    private static void awaitChildren(ZkClient c, String path, int n) {
        Cli.await(n + " children of " + path, WAIT, () -> {
            try {
                return c.getChildren(path).size() == n;
            } catch (RuntimeException e) {
                return false;
            }
        });
    }

    @Test
    void lockHolderWithFencingTokenAndWaitersInOrder() {
        ZkClient holder = client();
        ZkClient w1 = client();
        ZkClient w2 = client();
        LockLease lease = Recipes.using(holder).lock("/i/locks/orders").acquire();
        DistributedLock l1 = Recipes.using(w1).lock("/i/locks/orders");
        CompletableFuture<LockLease> waiting1 = CompletableFuture.supplyAsync(l1::acquire, threads);
        awaitChildren(holder, "/i/locks/orders", 2);
        DistributedLock l2 = Recipes.using(w2).lock("/i/locks/orders");
        CompletableFuture<LockLease> waiting2 = CompletableFuture.supplyAsync(l2::acquire, threads);
        awaitChildren(holder, "/i/locks/orders", 3);

        List<String> lines = ok(zkr(server, "locks", "/i/locks/orders")).lines();
        assertEquals("lock /i/locks/orders (mutex): held by 1, 2 waiting", lines.get(0));
        assertTrue(lines.get(1).matches("  holder    lock  session " + hex(holder.sessionId())
                + "  fencing token " + lease.fencingToken() + " since \\S+ \\(.+\\)  node _c_.*-lock-\\d{10}"),
                lines.get(1));
        assertTrue(lines.get(2).startsWith("  waiter 1  lock  session " + hex(w1.sessionId()) + " since"), lines.get(2));
        assertTrue(lines.get(3).startsWith("  waiter 2  lock  session " + hex(w2.sessionId()) + " since"), lines.get(3));
        assertEquals(4, lines.size());

        String json = ok(zkr(server, "locks", "/i/locks/orders", "--json")).out();
        assertTrue(json.startsWith("{\"path\":\"/i/locks/orders\",\"kind\":\"mutex\",\"holders\":[{\"node\":\"_c_"), json);
        assertTrue(json.contains("\"session\":\"" + hex(holder.sessionId()) + "\",\"fencingToken\":"
                + lease.fencingToken() + ","), json);

        // the parent of several locks: each lock below it
        List<String> below = ok(zkr(server, "locks", "/i/locks")).lines();
        assertEquals("lock /i/locks/orders (mutex): held by 1, 2 waiting", below.get(0));

        lease.close();
        LockLease next = waiting1.join();
        List<String> after = ok(zkr(server, "locks", "/i/locks/orders")).lines();
        assertEquals("lock /i/locks/orders (mutex): held by 1, 1 waiting", after.get(0));
        assertTrue(after.get(1).contains("session " + hex(w1.sessionId()) + "  fencing token " + next.fencingToken()),
                after.get(1));
        assertTrue(next.fencingToken() > lease.fencingToken());
        next.close();
        waiting2.join().close();
    }

    @Test
    void readWriteLockReadersHoldTogetherAheadOfAWriter() {
        ZkClient r1 = client();
        ZkClient r2 = client();
        ZkClient w = client();
        ReadWriteLock rw1 = Recipes.using(r1).readWriteLock("/i/rw");
        LockLease read1 = rw1.readLock().acquire();
        LockLease read2 = Recipes.using(r2).readWriteLock("/i/rw").readLock().acquire();
        CompletableFuture<LockLease> writer =
                CompletableFuture.supplyAsync(() -> Recipes.using(w).readWriteLock("/i/rw").writeLock().acquire(),
                        threads);
        awaitChildren(r1, "/i/rw", 3);
        List<String> lines = ok(zkr(server, "locks", "/i/rw")).lines();
        assertEquals("lock /i/rw (read-write): held by 2, 1 waiting", lines.get(0));
        assertTrue(lines.get(1).startsWith("  holder    read  session " + hex(r1.sessionId())), lines.get(1));
        assertTrue(lines.get(2).startsWith("  holder    read  session " + hex(r2.sessionId())), lines.get(2));
        assertTrue(lines.get(3).startsWith("  waiter 1  write session " + hex(w.sessionId())), lines.get(3));
        read1.close();
        read2.close();
        writer.join().close();
    }

    @Test
    void fairLeaderWithParticipantsInQueueOrder() {
        List<LeaderLatch> latches = new ArrayList<>();
        List<ZkClient> cs = new ArrayList<>();
        for (String id : List.of("worker-1", "worker-2", "worker-3")) {
            ZkClient c = client();
            cs.add(c);
            latches.add(Recipes.using(c).leaderLatch("/i/leader").id(id).fair().start());
            awaitChildren(c, "/i/leader", latches.size());
        }
        assertTrue(latches.get(0).await(WAIT));
        List<String> lines = ok(zkr(server, "leader", "/i/leader")).lines();
        assertEquals("election /i/leader (fair): leader worker-1, fencing token " + latches.get(0).fencingToken()
                + ", 3 participants", lines.get(0));
        assertTrue(lines.get(1).matches("  leader      worker-1     session " + hex(cs.get(0).sessionId()) + " .*"),
                lines.get(1));
        assertTrue(lines.get(2).startsWith("  follower 1  worker-2     session " + hex(cs.get(1).sessionId())),
                lines.get(2));
        assertTrue(lines.get(3).startsWith("  follower 2  worker-3"), lines.get(3));

        String json = ok(zkr(server, "--json", "leader", "/i/leader")).out();
        assertTrue(json.startsWith("{\"path\":\"/i/leader\",\"mode\":\"fair\",\"leader\":\"worker-1\",\"fencingToken\":"
                + latches.get(0).fencingToken() + ",\"participants\":[{\"id\":\"worker-1\",\"leader\":true"), json);
        latches.forEach(LeaderLatch::close);
    }

    @Test
    void unfairLeader() {
        ZkClient a = client();
        ZkClient b = client();
        LeaderLatch first = Recipes.using(a).leaderLatch("/i/unfair").id("fast").unfair().start();
        assertTrue(first.await(WAIT));
        LeaderLatch second = Recipes.using(b).leaderLatch("/i/unfair").id("slow").unfair().start();
        awaitChildren(a, "/i/unfair/members", 2);
        List<String> lines = ok(zkr(server, "leader", "/i/unfair")).lines();
        assertEquals("election /i/unfair (unfair): leader fast, fencing token " + first.fencingToken()
                + ", 2 participants", lines.get(0));
        assertTrue(lines.get(1).startsWith("  leader      fast "), lines.get(1));
        assertTrue(lines.get(2).startsWith("  follower 1  slow "), lines.get(2));
        second.close();
        first.close();
    }

    @Test
    void doubleBarrierEnteringOpenAndLeaving() {
        List<DoubleBarrier> members = new ArrayList<>();
        List<CompletableFuture<Void>> entering = new ArrayList<>();
        ZkClient watcher = client();
        for (String id : List.of("m1", "m2")) {
            DoubleBarrier b = Recipes.using(client()).doubleBarrier("/i/barrier").parties(3).memberId(id).build();
            members.add(b);
            entering.add(CompletableFuture.runAsync(b::enter, threads));
        }
        awaitChildren(watcher, "/i/barrier", 2);
        List<String> lines = ok(zkr(server, "barrier", "/i/barrier", "--parties", "3")).lines();
        assertEquals("double barrier /i/barrier: entering, 2 of 3 entered, waiting for 1", lines.get(0));
        assertTrue(lines.get(1).startsWith("  in  m1 "), lines.get(1));
        assertTrue(lines.get(2).startsWith("  in  m2 "), lines.get(2));
        // without --parties: who entered, but not how many are missing
        assertEquals("double barrier /i/barrier: entering, 2 of ? entered",
                ok(zkr(server, "barrier", "/i/barrier")).lines().get(0));

        DoubleBarrier m3 = Recipes.using(client()).doubleBarrier("/i/barrier").parties(3).memberId("m3").build();
        m3.enter();
        entering.forEach(CompletableFuture::join);
        List<String> open = ok(zkr(server, "barrier", "/i/barrier", "--parties", "3")).lines();
        assertTrue(open.get(0).matches("double barrier /i/barrier: open since \\S+ \\(.+\\), 3 of 3 still in, none left"),
                open.get(0));
        assertEquals(1, open.stream().filter(l -> l.endsWith("(lowest: leaves last)")).count(), open::toString);

        CompletableFuture<Void> leaving = CompletableFuture.runAsync(m3::leave, threads); // not the lowest: goes
        awaitChildren(watcher, "/i/barrier", 3); // ready + m1 + m2
        List<String> left = ok(zkr(server, "barrier", "/i/barrier", "--parties", "3", "--json")).lines();
        assertTrue(left.get(0).startsWith("{\"path\":\"/i/barrier\",\"kind\":\"double\",\"state\":\"leaving\","
                + "\"parties\":3,\"entered\":[{\"id\":\"m1\""), left.get(0));
        assertTrue(left.get(0).contains("\"left\":1,"), left.get(0));
        members.forEach(m -> CompletableFuture.runAsync(m::leave, threads));
        leaving.join();
    }

    @Test
    void simpleBarrier() {
        ZkClient c = client();
        Recipes.using(c).barrier("/i/gate").setBarrier();
        assertEquals(List.of("simple barrier /i/gate: up (persistent)"), ok(zkr(server, "barrier", "/i/gate")).lines());
        Result gone = zkr(server, "barrier", "/i/nothing");
        assertEquals(3, gone.exit(), gone::toString);
        assertEquals("zkr barrier: no node /i/nothing\n", gone.err());
    }

    @Test
    void groupMembersWithSessionsAndData() {
        ZkClient a = client();
        ZkClient b = client();
        GroupMembership ga = Recipes.using(a).group("/i/group").memberId("alpha")
                .data("host-a:8080".getBytes(StandardCharsets.UTF_8)).join();
        GroupMembership gb = Recipes.using(b).group("/i/group").memberId("beta").join();
        List<String> lines = ok(zkr(server, "group", "/i/group")).lines();
        assertEquals("group /i/group: 2 members", lines.get(0));
        assertTrue(lines.get(1).matches("  alpha        session " + hex(a.sessionId())
                + "  joined \\S+ \\(.+\\)  data 'host-a:8080'"), lines.get(1));
        assertTrue(lines.get(2).matches("  beta         session " + hex(b.sessionId()) + "  joined .*  data \\(none\\)"),
                lines.get(2));
        String json = ok(zkr(server, "group", "/i/group", "--json")).out();
        assertTrue(json.contains("{\"id\":\"alpha\",\"session\":\"" + hex(a.sessionId()) + "\",\"since\":"), json);
        assertTrue(json.contains("\"data\":\"host-a:8080\",\"encoding\":\"utf8\"}"), json);
        gb.close();
        ga.close();
    }

    @Test
    void queueDepthOldestItemAndClaims() {
        ZkClient producer = client();
        ZkClient consumer = client();
        AcknowledgedQueue<byte[]> q = Recipes.using(producer).queue("/i/queue").buildAcknowledged();
        for (int i = 0; i < 3; i++) {
            q.offer(("task " + i).getBytes(StandardCharsets.UTF_8));
        }
        AcknowledgedQueue<byte[]> cq = Recipes.using(consumer).queue("/i/queue").buildAcknowledged();
        QueueItem<byte[]> taken = cq.take();
        List<String> lines = ok(zkr(server, "queue", "/i/queue")).lines();
        assertTrue(lines.get(0).matches("queue /i/queue: 3 items \\(2 unclaimed, 1 claimed\\), oldest .* old"),
                lines.get(0));
        assertEquals("claimed:", lines.get(1));
        assertTrue(lines.get(2).matches("  item-\\S+-0000000000  by session " + hex(consumer.sessionId()) + " since .*"),
                lines.get(2));
        assertEquals("first 3:", lines.get(3));
        assertTrue(lines.get(4).matches("  item-\\S+-0000000000  6 B  offered .*  claimed"), lines.get(4));
        String json = ok(zkr(server, "queue", "/i/queue", "--json", "--limit", "1")).out();
        assertTrue(json.startsWith("{\"path\":\"/i/queue\",\"depth\":3,\"unclaimed\":2,\"oldestAgeMillis\":"), json);
        assertTrue(json.contains("\"claimedBy\":\"" + hex(consumer.sessionId()) + "\""), json);
        assertTrue(taken.ack());
        assertTrue(ok(zkr(server, "queue", "/i/queue")).lines().get(0).startsWith("queue /i/queue: 2 items (2 unclaimed, 0 claimed)"));
        cq.close();
        q.close();
    }

    @Test
    void counterValueAsTheRecipeReadsIt() {
        ZkClient a = client();
        ZkClient b = client();
        DistributedCounter ca = Recipes.using(a).counter("/i/counter");
        DistributedCounter cb = Recipes.using(b).counter("/i/counter");
        ca.addAndGet(5);
        cb.incrementAndGet();
        assertTrue(ca.compareAndSet(6, 40));
        ca.incrementAndGet();
        cb.addAndGet(2);
        assertEquals(43, ca.get());
        List<String> lines = ok(zkr(server, "counter", "/i/counter")).lines();
        assertEquals("counter /i/counter: 43", lines.get(0));
        assertEquals("  compare-and-set gate: free", lines.get(2));
        String json = ok(zkr(server, "counter", "/i/counter", "--json")).out();
        assertTrue(json.startsWith("{\"path\":\"/i/counter\",\"value\":43,\"initialised\":true,\"base\":40,"), json);
    }

    /**
     * Inspection reads through a client session, under its ACLs (issue 25's audit): a group whose members are
     * readable by their owner only shows nothing of theirs without the owner's --auth (exit 5, "not allowed") and
     * their data with it.
     */
    @Test
    void inspectionReadsUnderTheCallersAcls() {
        ZkClient owner = ensemble.newClient(b -> b.authInfo("digest", "owner:pw".getBytes(
                java.nio.charset.StandardCharsets.UTF_8)));
        clients.add(owner);
        owner.create("/i/private", new byte[0], dev.zkr.client.CreateMode.PERSISTENT);
        owner.create("/i/private/member-1", "owner-only-data".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                dev.zkr.client.CreateMode.EPHEMERAL, dev.zkr.client.Acls.CREATOR_ALL);
        Result refused = zkr(server, "group", "/i/private");
        assertEquals(5, refused.exit(), refused::toString);
        assertTrue(refused.err().contains("not allowed"), refused::toString);
        assertTrue(!refused.out().contains("owner-only-data") && !refused.err().contains("owner-only-data"),
                refused::toString);
        Result allowed = ok(zkr(server, "--auth", "digest:owner:pw", "group", "/i/private"));
        assertTrue(allowed.out().contains("owner-only-data"), allowed::toString);
    }
}
