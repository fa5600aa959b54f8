package dev.zkr.contract;

import dev.zkr.client.CreateMode;
import dev.zkr.client.Created;
import dev.zkr.client.NodeData;
import dev.zkr.client.Op;
import dev.zkr.client.OpResult;
import dev.zkr.client.Parents;
import dev.zkr.client.Stat;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkException.Code;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The node part of the contract (paths, limits, modes, Stat, versions, multi, sync), through the native client. */
class NodeContractTest {

    @TempDir
    static Path dir;
    static TestServer server;
    static ZkClient client;

    @BeforeAll
    static void start() {
        server = TestServer.start(dir);
        client = server.client();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static ZkException failure(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
        return assertInstanceOf(ZkException.class, e.getCause());
    }

    @Test
    void invalidPathsFailBeforeAnyIo() {
        List<String> bad = List.of("", "a", "/a/", "//", "/a//b", "/a/./b", "/a/..", "/.", "/a\u0000b", "/a\u0001",
                "/\u007f", "/a\ud800");
        for (String path : bad) {
            for (CompletableFuture<?> f : List.of(client.createAsync(path, null, CreateMode.PERSISTENT),
                    client.getDataAsync(path, null), client.existsAsync(path, null), client.deleteAsync(path, -1),
                    client.setDataAsync(path, null, -1), client.getChildrenAsync(path, null), client.syncAsync(path),
                    client.multiAsync(List.of(Op.check(path, -1))))) {
                assertTrue(f.isDone(), "not failed at once for '" + path + "'");
                assertEquals(Code.INVALID_PATH, failure(f).code(), path);
            }
        }
        ZkException nullPath = failure(client.getDataAsync(null, null));
        assertInstanceOf(ZkException.InvalidPath.class, nullPath);
        // a sequential create may end with '/', a plain one may not
        assertEquals(Code.INVALID_PATH, failure(client.createAsync("/trail/", null, CreateMode.PERSISTENT)).code());
        client.create("/trail", null, CreateMode.PERSISTENT);
        assertEquals("/trail/0000000000", client.create("/trail/", null, CreateMode.PERSISTENT_SEQUENTIAL));
    }

    @Test
    void dataLimitIsEnforcedAndTheConnectionStaysUp() {
        int max = client.maxDataSize();
        assertEquals(1024 * 1024, max);
        long session = client.sessionId();
        CompletableFuture<Created> tooBig = client.createAsync("/big", new byte[max + 1], CreateMode.PERSISTENT);
        assertTrue(tooBig.isDone());
        ZkException e = failure(tooBig);
        assertInstanceOf(ZkException.DataTooLarge.class, e);
        assertEquals("/big", e.path());
        byte[] full = new byte[max];
        full[max - 1] = 7;
        client.create("/big", full, CreateMode.PERSISTENT);
        assertInstanceOf(ZkException.DataTooLarge.class, failure(client.setDataAsync("/big", new byte[max + 1], -1)));
        assertInstanceOf(ZkException.DataTooLarge.class,
                failure(client.multiAsync(List.of(Op.setData("/big", new byte[max + 1], -1)))));
        NodeData read = client.getData("/big");
        assertArrayEquals(full, read.data());
        assertEquals(max, read.stat().dataLength());
        assertEquals(session, client.sessionId());
        assertTrue(client.state().isConnected());
    }

    @Test
    void multiLargerThanOneRequestFailsClearlyAndTheConnectionStaysUp() {
        int max = client.maxDataSize();
        long session = client.sessionId();
        List<Op> ops = List.of(Op.create("/multi-big-a", new byte[max], CreateMode.PERSISTENT),
                Op.create("/multi-big-b", new byte[max], CreateMode.PERSISTENT));
        CompletableFuture<List<OpResult>> tooBig = client.multiAsync(ops);
        assertTrue(tooBig.isDone(), "refused before any I/O");
        assertInstanceOf(ZkException.DataTooLarge.class, failure(tooBig));
        assertNull(client.exists("/multi-big-a"));
        assertEquals(session, client.sessionId());
        assertTrue(client.state().isConnected());
        client.multi(List.of(Op.create("/multi-big-a", new byte[max], CreateMode.PERSISTENT)));
        assertEquals(max, client.exists("/multi-big-a").dataLength());
    }

    @Test
    void nullDataIsEmpty() {
        client.create("/nulldata", null, CreateMode.PERSISTENT);
        assertArrayEquals(new byte[0], client.getData("/nulldata").data());
        client.setData("/nulldata", null, -1);
        assertEquals(0, client.exists("/nulldata").dataLength());
    }

    @Test
    void sequentialNamesTakeTheParentsTenDigitCounter() {
        client.create("/seq", null, CreateMode.PERSISTENT);
        assertEquals("/seq/lock-0000000000", client.create("/seq/lock-", null, CreateMode.PERSISTENT_SEQUENTIAL));
        assertEquals("/seq/lock-0000000001", client.create("/seq/lock-", null, CreateMode.EPHEMERAL_SEQUENTIAL));
        client.create("/seq/plain", null, CreateMode.PERSISTENT);
        client.delete("/seq/plain", -1);
        // the counter is the number of child creations of the parent (deletes do not count), as in ZooKeeper
        String next = client.create("/seq/x", null, CreateMode.PERSISTENT_SEQUENTIAL);
        assertEquals("/seq/x0000000003", next);
        assertEquals(3, dev.zkr.client.ZkPaths.sequenceOf(dev.zkr.client.ZkPaths.name(next)));
        Stat ephemeral = client.exists("/seq/lock-0000000001");
        assertEquals(client.sessionId(), ephemeral.ephemeralOwner());
        assertEquals(0, client.exists("/seq/lock-0000000000").ephemeralOwner());
    }

    @Test
    void containersGoWithTheirLastChild() {
        client.create("/never", null, CreateMode.CONTAINER);
        client.create("/cont", null, CreateMode.CONTAINER);
        client.create("/cont/child", null, CreateMode.PERSISTENT);
        client.delete("/cont/child", -1);
        waitUntil(() -> client.exists("/cont") == null, "container /cont not deleted");
        assertNotNull(client.exists("/never"), "a container that never had children stays");
    }

    @Test
    void ephemeralsCannotHaveChildren() {
        client.create("/eph", null, CreateMode.EPHEMERAL);
        ZkException e = assertThrows(ZkException.NoChildrenForEphemerals.class,
                () -> client.create("/eph/child", null, CreateMode.PERSISTENT));
        assertEquals(Code.NO_CHILDREN_FOR_EPHEMERALS, e.code());
    }

    @Test
    void createErrors() {
        assertThrows(ZkException.NoNode.class, () -> client.create("/missing/child", null, CreateMode.PERSISTENT));
        client.create("/dup", null, CreateMode.PERSISTENT);
        ZkException e = assertThrows(ZkException.NodeExists.class,
                () -> client.create("/dup", null, CreateMode.PERSISTENT));
        assertEquals("/dup", e.path());
        assertEquals("/deep/er/node", client.create("/deep/er/node", bytes("x"), CreateMode.PERSISTENT,
                Parents.PERSISTENT));
        assertThrows(ZkException.NoNode.class, () -> client.getData("/nothing"));
        assertNull(client.exists("/nothing"));
        assertThrows(ZkException.NoNode.class, () -> client.getChildren("/nothing"));
        assertThrows(ZkException.NoNode.class, () -> client.delete("/nothing", -1));
        assertThrows(ZkException.NoNode.class, () -> client.setData("/nothing", null, -1));
    }

    @Test
    void statHasZooKeepersMeaning() {
        long before = System.currentTimeMillis();
        Created created = client.createWithStat("/stat", bytes("abc"), CreateMode.PERSISTENT, Parents.NONE);
        Stat s = created.stat();
        assertEquals("/stat", created.path());
        assertTrue(s.czxid() > 0);
        assertEquals(s.czxid(), s.mzxid());
        assertEquals(s.czxid(), s.pzxid());
        assertEquals(s.ctime(), s.mtime());
        assertTrue(s.ctime() >= before - 1000 && s.ctime() <= System.currentTimeMillis() + 1000, "ctime " + s.ctime());
        assertEquals(0, s.version());
        assertEquals(0, s.cversion());
        assertEquals(0, s.aversion());
        assertEquals(0, s.ephemeralOwner());
        assertEquals(3, s.dataLength());
        assertEquals(0, s.numChildren());
        assertEquals(s, client.exists("/stat"));

        Stat changed = client.setData("/stat", bytes("hello"), 0);
        assertEquals(s.czxid(), changed.czxid());
        assertTrue(changed.mzxid() > s.mzxid());
        assertEquals(s.pzxid(), changed.pzxid());
        assertEquals(s.ctime(), changed.ctime());
        assertTrue(changed.mtime() >= s.mtime());
        assertEquals(1, changed.version());
        assertEquals(5, changed.dataLength());
        assertEquals(changed, client.getData("/stat").stat());

        Stat child = client.createWithStat("/stat/c", null, CreateMode.EPHEMERAL, Parents.NONE).stat();
        assertEquals(client.sessionId(), child.ephemeralOwner());
        assertTrue(child.isEphemeral());
        Stat parent = client.exists("/stat");
        assertEquals(1, parent.cversion());
        assertEquals(1, parent.numChildren());
        assertEquals(child.czxid(), parent.pzxid());
        assertEquals(changed.mzxid(), parent.mzxid());
        assertEquals(1, parent.version());
        assertEquals(parent, client.getChildrenWithStat("/stat", null).stat());

        client.delete("/stat/c", -1);
        Stat after = client.exists("/stat");
        assertEquals(2, after.cversion(), "ZooKeeper counts child creations and deletions");
        assertEquals(0, after.numChildren());
        assertTrue(after.pzxid() > child.czxid());
        assertEquals(changed.mzxid(), after.mzxid());
    }

    @Test
    void conditionalUpdatesAndNotEmpty() {
        client.create("/cond", bytes("0"), CreateMode.PERSISTENT);
        assertThrows(ZkException.BadVersion.class, () -> client.setData("/cond", bytes("x"), 3));
        assertEquals(1, client.setData("/cond", bytes("1"), 0).version());
        assertEquals(2, client.setData("/cond", bytes("2"), -1).version());
        client.create("/cond/child", null, CreateMode.PERSISTENT);
        ZkException notEmpty = assertThrows(ZkException.NotEmpty.class, () -> client.delete("/cond", -1));
        assertEquals("/cond", notEmpty.path());
        client.delete("/cond/child", 0);
        assertThrows(ZkException.BadVersion.class, () -> client.delete("/cond", 1));
        client.delete("/cond", 2);
        assertNull(client.exists("/cond"));
    }

    @Test
    void childrenAreListed() {
        client.create("/kids", null, CreateMode.PERSISTENT);
        for (String k : List.of("a", "b", "c")) {
            client.create("/kids/" + k, null, CreateMode.PERSISTENT);
        }
        assertEquals(Set.of("a", "b", "c"), Set.copyOf(client.getChildren("/kids")));
        assertEquals(List.of(), client.getChildren("/kids/a"));
        assertTrue(client.getChildren("/").contains("kids"));
    }

    @Test
    void multiIsAtomicWithPerOpResults() {
        client.create("/m", bytes("v"), CreateMode.PERSISTENT);
        List<OpResult> results = client.multi(List.of(
                Op.create("/m/a", bytes("a"), CreateMode.PERSISTENT),
                Op.create("/m/s-", null, CreateMode.PERSISTENT_SEQUENTIAL),
                Op.setData("/m", bytes("w"), 0),
                Op.check("/m", 1),
                Op.delete("/m/a", 0)));
        assertEquals(5, results.size());
        OpResult.CreateResult a = assertInstanceOf(OpResult.CreateResult.class, results.get(0));
        assertEquals("/m/a", a.path());
        assertEquals("/m/s-0000000001", ((OpResult.CreateResult) results.get(1)).path());
        assertEquals(1, assertInstanceOf(OpResult.SetDataResult.class, results.get(2)).stat().version());
        assertInstanceOf(OpResult.CheckResult.class, results.get(3));
        assertInstanceOf(OpResult.DeleteResult.class, results.get(4));
        assertNull(client.exists("/m/a"));
        // every op of a multi has the same zxid
        assertEquals(a.stat().czxid(), ((OpResult.SetDataResult) results.get(2)).stat().mzxid());

        ZkException e = failure(client.multiAsync(List.of(
                Op.create("/m/b", null, CreateMode.PERSISTENT),
                Op.setData("/m", bytes("z"), 7),
                Op.delete("/m", -1))));
        assertInstanceOf(ZkException.BadVersion.class, e);
        assertEquals("/m", e.path());
        assertEquals(List.of(new OpResult.ErrorResult(Code.OK), new OpResult.ErrorResult(Code.BAD_VERSION),
                new OpResult.ErrorResult(Code.RUNTIME_INCONSISTENCY)), e.multiResults());
        assertNull(client.exists("/m/b"), "a failed multi applies nothing");
        assertArrayEquals(bytes("w"), client.getData("/m").data());

        ZkException noNode = assertThrows(ZkException.NoNode.class,
                () -> client.multi(List.of(Op.check("/m/none", -1))));
        assertEquals("/m/none", noNode.path());
        assertEquals(List.of(), client.multi(List.of()));
    }

    @Test
    void syncMakesOtherClientsWritesVisible() {
        ZkClient other = server.client();
        other.create("/synced", bytes("1"), CreateMode.PERSISTENT);
        client.sync("/synced");
        assertArrayEquals(bytes("1"), client.getData("/synced").data());
    }

    @Test
    void futuresCompleteOnTheEventThreadInRequestOrder() throws Exception {
        client.create("/order", null, CreateMode.PERSISTENT);
        List<Integer> order = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = java.util.Collections.synchronizedList(new ArrayList<>());
        List<CompletableFuture<?>> all = new ArrayList<>();
        Thread caller = Thread.currentThread();
        for (int i = 0; i < 500; i++) {
            int n = i;
            CompletableFuture<?> f = (i % 2 == 0
                    ? client.createAsync("/order/n-", null, CreateMode.PERSISTENT_SEQUENTIAL)
                    : client.getChildrenAsync("/order", null));
            all.add(f.whenComplete((v, e) -> {
                order.add(n);
                // a future that completed before whenComplete was attached runs the callback right here, on the
                // caller: that says nothing about the thread that completed it
                if (Thread.currentThread() != caller) {
                    threads.add(Thread.currentThread());
                }
            }));
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
        for (int i = 0; i < order.size(); i++) {
            assertEquals(i, order.get(i));
        }
        assertFalse(threads.isEmpty(), "some futures completed after their callback was attached");
        assertEquals(1, Set.copyOf(threads).size(), "one event thread");
        assertFalse(threads.get(0).getName().contains("io"), threads.get(0).getName());
        assertEquals(250, client.getChildren("/order").size());
        assertSame(threads.get(0), threads.get(threads.size() - 1));
    }

    static void waitUntil(java.util.function.BooleanSupplier condition, String message) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(message);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }
}
