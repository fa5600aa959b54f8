package dev.zkr.apache;

import dev.zkr.client.Children;
import dev.zkr.client.ConnectionState;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Created;
import dev.zkr.client.NodeData;
import dev.zkr.client.Op;
import dev.zkr.client.OpResult;
import dev.zkr.client.Parents;
import dev.zkr.client.Stat;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every primitive of {@link ApacheZkClient} against a real ZooKeeper server, with its results and errors. */
class ApacheZkClientOperationsTest {

    private static EmbeddedZooKeeper server;
    private static ApacheZkClient client;
    private String base;

    @BeforeAll
    static void startServer() {
        server = EmbeddedZooKeeper.start();
        client = ApacheZkClient.connect(server.connectString(), Duration.ofSeconds(10));
    }

    @AfterAll
    static void stopServer() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void makeBase(TestInfo info) {
        base = "/" + info.getTestMethod().orElseThrow().getName();
        client.create(base, new byte[0], CreateMode.PERSISTENT);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void createThenReadBackWithEveryStatField() {
        long before = System.currentTimeMillis();
        Created created = client.createWithStat(base + "/a", bytes("hello"), CreateMode.PERSISTENT, Parents.NONE);
        assertEquals(base + "/a", created.path());
        Stat s = created.stat();
        assertTrue(s.czxid() > 0);
        assertEquals(s.czxid(), s.mzxid());
        assertEquals(s.czxid(), s.pzxid());
        assertTrue(s.ctime() >= before - 1000 && s.ctime() <= System.currentTimeMillis() + 1000, "ctime " + s.ctime());
        assertEquals(s.ctime(), s.mtime());
        assertEquals(0, s.version());
        assertEquals(0, s.cversion());
        assertEquals(0, s.aversion());
        assertEquals(0, s.ephemeralOwner());
        assertFalse(s.isEphemeral());
        assertEquals(5, s.dataLength());
        assertEquals(0, s.numChildren());

        NodeData read = client.getData(base + "/a");
        assertArrayEquals(bytes("hello"), read.data());
        assertEquals(s, read.stat());
        assertEquals(s, client.exists(base + "/a"));
        assertNull(client.exists(base + "/missing"));
    }

    @Test
    void setDataBumpsVersionAndMzxid() {
        Stat created = client.createWithStat(base + "/n", bytes("1"), CreateMode.PERSISTENT, Parents.NONE).stat();
        Stat changed = client.setData(base + "/n", bytes("22"), 0);
        assertEquals(1, changed.version());
        assertEquals(2, changed.dataLength());
        assertEquals(created.czxid(), changed.czxid());
        assertTrue(changed.mzxid() > created.mzxid());
        assertEquals(created.pzxid(), changed.pzxid());
        Stat any = client.setData(base + "/n", bytes("333"), -1);
        assertEquals(2, any.version());
        assertArrayEquals(bytes("333"), client.getData(base + "/n").data());
    }

    @Test
    void childrenAndParentStat() {
        Stat parentBefore = client.exists(base);
        client.create(base + "/x", new byte[0], CreateMode.PERSISTENT);
        Created y = client.createWithStat(base + "/y", new byte[0], CreateMode.PERSISTENT, Parents.NONE);
        Children children = client.getChildrenWithStat(base, null);
        assertEquals(List.of("x", "y"), children.names().stream().sorted().toList());
        assertEquals(2, children.stat().numChildren());
        assertEquals(parentBefore.cversion() + 2, children.stat().cversion());
        assertEquals(y.stat().czxid(), children.stat().pzxid());
        assertEquals(parentBefore.version(), children.stat().version());
        client.delete(base + "/x", 0);
        assertEquals(List.of("y"), client.getChildren(base));
        assertEquals(parentBefore.cversion() + 3, client.exists(base).cversion());
    }

    @Test
    void ephemeralNodesBelongToTheSession() {
        Stat s = client.createWithStat(base + "/e", new byte[0], CreateMode.EPHEMERAL, Parents.NONE).stat();
        assertEquals(client.sessionId(), s.ephemeralOwner());
        assertTrue(s.isEphemeral());
        ZkException e = assertThrows(ZkException.NoChildrenForEphemerals.class,
                () -> client.create(base + "/e/child", new byte[0], CreateMode.PERSISTENT));
        assertEquals(-108, e.code().intValue());
        assertEquals(base + "/e/child", e.path());

        try (ApacheZkClient other = ApacheZkClient.connect(server.connectString(), Duration.ofSeconds(10))) {
            other.create(base + "/e2", new byte[0], CreateMode.EPHEMERAL);
            assertEquals(other.sessionId(), client.exists(base + "/e2").ephemeralOwner());
        }
        assertNull(client.exists(base + "/e2"), "ephemeral of a closed session is gone");
    }

    @Test
    void sequentialNamesTakeTheParentCounter() {
        List<String> names = new ArrayList<>();
        names.add(client.create(base + "/lock-", new byte[0], CreateMode.PERSISTENT_SEQUENTIAL));
        client.create(base + "/plain", new byte[0], CreateMode.PERSISTENT);
        names.add(client.create(base + "/lock-", new byte[0], CreateMode.EPHEMERAL_SEQUENTIAL));
        names.add(client.create(base + "/", new byte[0], CreateMode.PERSISTENT_SEQUENTIAL));
        assertEquals(List.of(base + "/lock-0000000000", base + "/lock-0000000002", base + "/0000000003"), names);
        assertTrue(client.exists(names.get(1)).isEphemeral());
        assertFalse(client.exists(names.get(0)).isEphemeral());
    }

    @Test
    void containerIsDeletedAfterItsLastChild() throws InterruptedException {
        client.create(base + "/c", new byte[0], CreateMode.CONTAINER);
        client.create(base + "/c/child", new byte[0], CreateMode.PERSISTENT);
        client.delete(base + "/c/child", -1);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (client.exists(base + "/c") != null) {
            assertTrue(System.nanoTime() < deadline, "container still there after 10 s");
            Thread.onSpinWait();
            client.sync(base);
        }
        // ZooKeeper keeps containers that never had a child
        client.create(base + "/never", new byte[0], CreateMode.CONTAINER);
        client.create(base + "/probe", new byte[0], CreateMode.CONTAINER);
        client.create(base + "/probe/x", new byte[0], CreateMode.PERSISTENT);
        client.delete(base + "/probe/x", -1);
        while (client.exists(base + "/probe") != null) {
            assertTrue(System.nanoTime() < deadline, "container still there after 10 s");
            client.sync(base);
        }
        assertTrue(client.exists(base + "/never") != null);
    }

    @Test
    void errorsAreTypedWithZooKeepersCodesAndThePath() {
        client.create(base + "/n", new byte[0], CreateMode.PERSISTENT);
        client.create(base + "/n/c", new byte[0], CreateMode.PERSISTENT);

        assertError(ZkException.NodeExists.class, -110, base + "/n",
                () -> client.createAsync(base + "/n", new byte[0], CreateMode.PERSISTENT));
        assertError(ZkException.NoNode.class, -101, base + "/missing/x",
                () -> client.createAsync(base + "/missing/x", new byte[0], CreateMode.PERSISTENT));
        assertError(ZkException.NoNode.class, -101, base + "/missing", () -> client.deleteAsync(base + "/missing", -1));
        assertError(ZkException.NoNode.class, -101, base + "/missing", () -> client.getDataAsync(base + "/missing", null));
        assertError(ZkException.NoNode.class, -101, base + "/missing",
                () -> client.setDataAsync(base + "/missing", new byte[0], -1));
        assertError(ZkException.NoNode.class, -101, base + "/missing",
                () -> client.getChildrenAsync(base + "/missing", null));
        assertError(ZkException.BadVersion.class, -103, base + "/n",
                () -> client.setDataAsync(base + "/n", new byte[0], 7));
        assertError(ZkException.BadVersion.class, -103, base + "/n/c", () -> client.deleteAsync(base + "/n/c", 3));
        assertError(ZkException.NotEmpty.class, -111, base + "/n", () -> client.deleteAsync(base + "/n", -1));
        assertError(ZkException.NoWatcher.class, -121, base + "/n",
                () -> client.removeWatchesAsync(base + "/n", e -> { }, dev.zkr.client.WatcherType.ANY, false));
        // blocking forms throw the same, unwrapped
        assertThrows(ZkException.NodeExists.class, () -> client.create(base + "/n", new byte[0], CreateMode.PERSISTENT));
    }

    private static void assertError(Class<? extends ZkException> type, int code, String path,
                                    Supplier<CompletableFuture<?>> call) {
        CompletableFuture<?> f = call.get();
        Throwable t = assertThrows(Throwable.class, f::join);
        ZkException e = assertInstanceOf(type, t.getCause() == null ? t : t.getCause());
        assertEquals(code, e.code().intValue());
        assertEquals(path, e.path());
    }

    @Test
    void parentsAreCreatedOnRequest() {
        client.create(base + "/p/q/r", bytes("x"), CreateMode.PERSISTENT, Parents.PERSISTENT);
        assertArrayEquals(bytes("x"), client.getData(base + "/p/q/r").data());
        client.create(base + "/k/l", new byte[0], CreateMode.EPHEMERAL, Parents.CONTAINER);
        assertFalse(client.exists(base + "/k").isEphemeral());
    }

    @Test
    void multiSucceedsWithPerOpResults() {
        client.create(base + "/old", bytes("o"), CreateMode.PERSISTENT);
        client.create(base + "/gone", new byte[0], CreateMode.PERSISTENT);
        List<OpResult> results = client.multi(List.of(
                Op.create(base + "/new", bytes("n"), CreateMode.PERSISTENT),
                Op.create(base + "/seq-", new byte[0], CreateMode.PERSISTENT_SEQUENTIAL),
                Op.create(base + "/cont", new byte[0], CreateMode.CONTAINER),
                Op.check(base + "/old", 0),
                Op.setData(base + "/old", bytes("oo"), 0),
                Op.delete(base + "/gone", 0)));
        assertEquals(6, results.size());
        OpResult.CreateResult created = assertInstanceOf(OpResult.CreateResult.class, results.get(0));
        assertEquals(base + "/new", created.path());
        assertEquals(1, created.stat().dataLength());
        OpResult.CreateResult seq = assertInstanceOf(OpResult.CreateResult.class, results.get(1));
        assertTrue(seq.path().matches(".*/seq-\\d{10}"), seq.path());
        OpResult.CreateResult cont = assertInstanceOf(OpResult.CreateResult.class, results.get(2));
        assertEquals(created.stat().czxid(), cont.stat().czxid(), "one transaction, one zxid");
        assertInstanceOf(OpResult.CheckResult.class, results.get(3));
        OpResult.SetDataResult set = assertInstanceOf(OpResult.SetDataResult.class, results.get(4));
        assertEquals(1, set.stat().version());
        assertInstanceOf(OpResult.DeleteResult.class, results.get(5));
        assertNull(client.exists(base + "/gone"));
        assertEquals(List.of(), client.multi(List.of()));
    }

    @Test
    void failedMultiAppliesNothingAndReportsEveryOp() {
        client.create(base + "/n", bytes("v"), CreateMode.PERSISTENT);
        ZkException e = assertThrows(ZkException.BadVersion.class, () -> client.multi(List.of(
                Op.create(base + "/a", new byte[0], CreateMode.PERSISTENT),
                Op.check(base + "/n", 5),
                Op.setData(base + "/n", bytes("w"), -1))));
        assertEquals(base + "/n", e.path());
        assertEquals(List.of(new OpResult.ErrorResult(ZkException.Code.OK),
                new OpResult.ErrorResult(ZkException.Code.BAD_VERSION),
                new OpResult.ErrorResult(ZkException.Code.RUNTIME_INCONSISTENCY)), e.multiResults());
        assertNull(client.exists(base + "/a"));
        assertArrayEquals(bytes("v"), client.getData(base + "/n").data());

        ZkException noNode = assertThrows(ZkException.NoNode.class, () -> client.multi(List.of(
                Op.delete(base + "/missing", -1))));
        assertEquals(List.of(new OpResult.ErrorResult(ZkException.Code.NO_NODE)), noNode.multiResults());
    }

    @Test
    void invalidPathsFailBeforeAnyIo() {
        for (String bad : Arrays.asList(null, "", "a", "/a/", "//", "/a//b", "/a/./b", "/a/..", "/a\u0000b",
                "/a\u0001")) {
            assertImmediate(ZkException.InvalidPath.class, client.createAsync(bad, new byte[0], CreateMode.PERSISTENT));
            assertImmediate(ZkException.InvalidPath.class, client.deleteAsync(bad, -1));
            assertImmediate(ZkException.InvalidPath.class, client.existsAsync(bad, null));
            assertImmediate(ZkException.InvalidPath.class, client.getDataAsync(bad, e -> { }));
            assertImmediate(ZkException.InvalidPath.class, client.setDataAsync(bad, new byte[0], -1));
            assertImmediate(ZkException.InvalidPath.class, client.getChildrenAsync(bad, null));
            assertImmediate(ZkException.InvalidPath.class, client.syncAsync(bad));
            assertImmediate(ZkException.InvalidPath.class,
                    client.addWatchAsync(bad, dev.zkr.client.AddWatchMode.PERSISTENT, e -> { }));
            assertImmediate(ZkException.InvalidPath.class,
                    client.removeWatchesAsync(bad, e -> { }, dev.zkr.client.WatcherType.ANY, false));
            assertImmediate(ZkException.InvalidPath.class, client.multiAsync(List.of(
                    Op.create(base + "/ok", new byte[0], CreateMode.PERSISTENT), Op.delete(bad, -1))));
        }
        // a sequential create may end with '/', a plain one may not
        assertImmediate(ZkException.InvalidPath.class, client.createAsync(base + "/", new byte[0], CreateMode.PERSISTENT));
        assertThrows(ZkException.InvalidPath.class, () -> client.create("a/b", new byte[0], CreateMode.PERSISTENT));
        assertNull(client.exists(base + "/ok"));
        assertEquals(ConnectionState.CONNECTED, client.state());
    }

    @Test
    void oversizedDataFailsBeforeAnyIoAndTheConnectionStays() {
        long session = client.sessionId();
        byte[] max = new byte[client.maxDataSize()];
        byte[] over = new byte[client.maxDataSize() + 1];
        assertImmediate(ZkException.DataTooLarge.class, client.createAsync(base + "/big", over, CreateMode.PERSISTENT));
        client.create(base + "/big", new byte[0], CreateMode.PERSISTENT);
        assertImmediate(ZkException.DataTooLarge.class, client.setDataAsync(base + "/big", over, -1));
        assertImmediate(ZkException.DataTooLarge.class, client.multiAsync(List.of(Op.setData(base + "/big", over, -1))));
        // two ops that are each fine but together exceed ZooKeeper's request limit
        assertImmediate(ZkException.DataTooLarge.class, client.multiAsync(List.of(
                Op.setData(base + "/big", max, -1), Op.setData(base + "/big", max, -1))));
        // a long path pushes a max-size request over ZooKeeper's limit
        String longPath = base + "/" + "p".repeat(2000);
        assertImmediate(ZkException.DataTooLarge.class, client.createAsync(longPath, max, CreateMode.PERSISTENT));

        // exactly the limit fits into a default ZooKeeper server, and reads back
        Stat s = client.setData(base + "/big", max, -1);
        assertEquals(max.length, s.dataLength());
        assertEquals(max.length, client.getData(base + "/big").data().length);
        assertEquals(ConnectionState.CONNECTED, client.state());
        assertEquals(session, client.sessionId());
    }

    private static void assertImmediate(Class<? extends ZkException> type, CompletableFuture<?> f) {
        assertTrue(f.isCompletedExceptionally(), "must fail before any I/O: " + f);
        Throwable t = assertThrows(Throwable.class, f::join);
        assertInstanceOf(type, t.getCause());
    }

    @Test
    void manyRequestsInFlightCompleteInTheOrderTheyWereSent() {
        List<String> completed = java.util.Collections.synchronizedList(new ArrayList<>());
        List<CompletableFuture<?>> futures = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            futures.add(client.createAsync(base + "/s-", new byte[] {(byte) i}, CreateMode.PERSISTENT_SEQUENTIAL)
                    .thenAccept(c -> completed.add(c.path())));
        }
        CompletableFuture.allOf(futures.toArray(new CompletableFuture<?>[0])).join();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            expected.add(base + "/s-" + dev.zkr.client.ZkPaths.sequenceSuffix(i));
        }
        assertEquals(expected, completed);
        assertEquals(300, client.exists(base).numChildren());
    }

    @Test
    void nullDataIsEmpty() {
        client.create(base + "/n", null, CreateMode.PERSISTENT);
        assertArrayEquals(new byte[0], client.getData(base + "/n").data());
        client.setData(base + "/n", null, -1);
        assertEquals(0, client.exists(base + "/n").dataLength());
    }

    @Test
    void syncMakesOtherClientsWritesVisible() {
        try (ZkClient other = ApacheZkClient.connect(server.connectString(), Duration.ofSeconds(10))) {
            other.create(base + "/w", bytes("1"), CreateMode.PERSISTENT);
            client.sync(base + "/w");
            assertArrayEquals(bytes("1"), client.getData(base + "/w").data());
            assertNotEquals(client.sessionId(), other.sessionId());
        }
    }

    @Test
    void connectFailsWithConnectionLossAfterTheTimeout() {
        int deadPort;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            deadPort = s.getLocalPort();
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
        long start = System.nanoTime();
        ZkException e = assertThrows(ZkException.ConnectionLoss.class, () -> ApacheZkClient.builder()
                .connectString("127.0.0.1:" + deadPort).connectTimeout(Duration.ofMillis(500)).build());
        assertTrue(Duration.ofNanos(System.nanoTime() - start).compareTo(Duration.ofSeconds(5)) < 0);
        assertTrue(e.getMessage().contains("127.0.0.1:" + deadPort), e.getMessage());
    }

    @Test
    void badArgumentsAreTyped() {
        assertImmediate(ZkException.BadArguments.class, client.createAsync(base + "/x", new byte[0], null));
        assertImmediate(ZkException.BadArguments.class, client.multiAsync(null));
        assertImmediate(ZkException.BadArguments.class,
                client.addWatchAsync(base, dev.zkr.client.AddWatchMode.PERSISTENT, null));
        assertThrows(IllegalArgumentException.class, () -> ApacheZkClient.builder().connectString(" "));
        assertThrows(IllegalStateException.class, () -> ApacheZkClient.builder().build());
    }
}
