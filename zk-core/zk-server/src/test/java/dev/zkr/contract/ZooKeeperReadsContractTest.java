package dev.zkr.contract;

import dev.zkr.client.Acl;
import dev.zkr.client.Acls;
import dev.zkr.client.ClientInfo;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Op;
import dev.zkr.client.OpResult;
import dev.zkr.client.Parents;
import dev.zkr.client.Perms;
import dev.zkr.client.Stat;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkException.Code;
import dev.zkr.server.ServerConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ZooKeeper 3.6+'s reads on a real server through the native client: getEphemerals, getAllChildrenNumber, whoAmI and
 * multiRead, with ZooKeeper 3.9's semantics (FinalRequestProcessor).
 */
class ZooKeeperReadsContractTest {

    @TempDir
    static Path dir;
    static TestServer server;
    static ZkClient client;

    @BeforeAll
    static void start() {
        server = TestServer.start(ServerConfig.builder(dir).superDigest(Acls.generateDigest("super:admin")));
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
    void getEphemeralsListsThisSessionsOwnByStringPrefix() {
        client.create("/eph/app/a", null, CreateMode.PERSISTENT, Parents.PERSISTENT);
        client.create("/eph/app/e1", null, CreateMode.EPHEMERAL);
        client.create("/eph/app/a/e2", null, CreateMode.EPHEMERAL);
        String seq = client.create("/eph/app/s-", null, CreateMode.EPHEMERAL_SEQUENTIAL);
        client.create("/eph/app2", null, CreateMode.EPHEMERAL);
        client.create("/eph/persistent", null, CreateMode.PERSISTENT);
        try (ZkClient other = server.client()) {
            other.create("/eph/app/theirs", null, CreateMode.EPHEMERAL);
            assertEquals(List.of("/eph/app/theirs"), other.getEphemerals("/"), "each session sees its own");
            assertEquals(List.of("/eph/app/a/e2", "/eph/app/e1", seq, "/eph/app2"), client.getEphemerals("/"));
            // ZooKeeper's prefix is a string prefix: /eph/app also matches /eph/app2
            assertEquals(List.of("/eph/app/a/e2", "/eph/app/e1", seq, "/eph/app2"), client.getEphemerals("/eph/app"));
            assertEquals(List.of("/eph/app/a/e2"), client.getEphemerals("/eph/app/a"));
            assertEquals(List.of(), client.getEphemerals("/nothing"));
        }
        assertEquals(Code.INVALID_PATH, failure(client.getEphemeralsAsync("eph")).code());
    }

    @Test
    void aSessionWithoutEphemeralsGetsNoneWhateverThePrefix() {
        try (ZkClient fresh = server.client()) {
            assertEquals(List.of(), fresh.getEphemerals("/"));
            assertEquals(List.of(), fresh.getEphemerals("/eph"), "the conformance suite found this one: the server"
                    + " failed on a prefix for a session that never had an ephemeral");
            fresh.create("/eph-fresh", null, CreateMode.EPHEMERAL);
            fresh.delete("/eph-fresh", -1);
            assertEquals(List.of(), fresh.getEphemerals("/eph"), "all deleted again");
        }
        assertEquals(List.of(), client.multiRead(List.of()), "the server still serves");
    }

    @Test
    void getAllChildrenNumberCountsEveryDescendantReadChecked() throws Exception {
        client.create("/count/a/b/c", null, CreateMode.PERSISTENT, Parents.PERSISTENT);
        client.create("/count/a/d", null, CreateMode.PERSISTENT);
        client.create("/count/e", null, CreateMode.EPHEMERAL);
        client.create("/countx", null, CreateMode.PERSISTENT); // a sibling sharing the prefix is not a descendant
        assertEquals(5, client.getAllChildrenNumber("/count"));
        assertEquals(3, client.getAllChildrenNumber("/count/a"));
        assertEquals(0, client.getAllChildrenNumber("/count/a/b/c"));
        assertEquals(Code.NO_NODE, failure(client.getAllChildrenNumberAsync("/count/missing")).code());
        client.delete("/count/a/d", -1);
        assertEquals(4, client.getAllChildrenNumber("/count"));
        // READ on the node itself, as ZooKeeper checks it
        client.create("/count/secret", null, CreateMode.PERSISTENT,
                List.of(new Acl(Perms.ALL, Acls.digest("alice", "pw"))));
        try (ZkClient other = server.client()) {
            assertEquals(Code.NO_AUTH, failure(other.getAllChildrenNumberAsync("/count/secret")).code());
            other.addAuthInfo("digest", bytes("alice:pw"));
            assertEquals(0, other.getAllChildrenNumber("/count/secret"));
        }
        // the root counts every node but itself
        int all = client.getAllChildrenNumber("/");
        client.create("/count/one-more", null, CreateMode.PERSISTENT);
        assertEquals(all + 1, client.getAllChildrenNumber("/"));
    }

    @Test
    void whoAmIListsTheConnectionsIdsAsZooKeeperNamesThem() {
        try (ZkClient c = server.client()) {
            assertEquals(List.of(new ClientInfo("ip", "127.0.0.1")), c.whoAmI());
            c.addAuthInfo("digest", bytes("alice:pw"));
            c.addAuthInfo("digest", bytes("bob:pw2"));
            assertEquals(List.of(new ClientInfo("ip", "127.0.0.1"), new ClientInfo("digest", "alice"),
                    new ClientInfo("digest", "bob")), c.whoAmI());
        }
        try (ZkClient admin = server.client()) {
            admin.addAuthInfo("digest", bytes("super:admin"));
            // ZooKeeper adds super: before the digest id; no provider names super's user, so it is empty
            assertEquals(List.of(new ClientInfo("ip", "127.0.0.1"), new ClientInfo("super", ""),
                    new ClientInfo("digest", "super")), admin.whoAmI());
        }
    }

    @Test
    void multiReadServesEachReadAloneWithoutWatches() {
        client.create("/mr/a", bytes("A"), CreateMode.PERSISTENT, Parents.PERSISTENT);
        client.create("/mr/a/x", null, CreateMode.PERSISTENT);
        client.create("/mr/a/y", null, CreateMode.PERSISTENT);
        client.create("/mr/secret", bytes("S"), CreateMode.PERSISTENT,
                List.of(new Acl(Perms.ALL, Acls.digest("alice", "pw"))));
        Stat a = client.exists("/mr/a");
        List<OpResult> results = client.multiRead(List.of(Op.getData("/mr/a"), Op.getChildren("/mr/a"),
                Op.getData("/mr/missing"), Op.getChildren("/mr/secret"), Op.getData("/mr/secret"),
                Op.getChildren("/mr/a/x")));
        assertEquals(6, results.size());
        OpResult.GetDataResult d = assertInstanceOf(OpResult.GetDataResult.class, results.get(0));
        assertArrayEquals(bytes("A"), d.data());
        assertEquals(a, d.stat());
        assertEquals(Set.of("x", "y"), Set.copyOf(assertInstanceOf(OpResult.GetChildrenResult.class,
                results.get(1)).children()));
        assertEquals(new OpResult.ErrorResult(Code.NO_NODE), results.get(2));
        assertEquals(new OpResult.ErrorResult(Code.NO_AUTH), results.get(3));
        assertEquals(new OpResult.ErrorResult(Code.NO_AUTH), results.get(4));
        assertEquals(List.of(), assertInstanceOf(OpResult.GetChildrenResult.class, results.get(5)).children());
        assertEquals(List.of(), client.multiRead(List.of()));
        assertTrue(client.watchedPaths().isEmpty(), "a multiRead sets no watch");
    }

    @Test
    void readsAndWritesDoNotMix() {
        assertEquals(Code.BAD_ARGUMENTS, failure(client.multiReadAsync(List.of(Op.getData("/"),
                Op.delete("/x", -1)))).code());
        assertEquals(Code.BAD_ARGUMENTS, failure(client.multiAsync(List.of(Op.check("/", -1),
                Op.getData("/")))).code());
        assertEquals(Code.INVALID_PATH, failure(client.multiReadAsync(List.of(Op.getData("bad")))).code());
    }

    @Test
    void theServerRefusesAWriteInAMultiReadAndAReadInAMulti() {
        // what another client could send: the server's own checks, over the raw protocol
        try (dev.zkr.server.RawClient raw = dev.zkr.server.RawClient.session(server.port(), 4000)) {
            dev.zkr.wire.Message.Reply r = raw.call(xid -> new dev.zkr.wire.Message.MultiReadRequest(xid,
                    new Op[] {Op.getData("/"), Op.check("/", -1)}));
            assertEquals(Code.BAD_ARGUMENTS.intValue(), r.code());
            r = raw.call(xid -> new dev.zkr.wire.Message.MultiRequest(xid, new Op[] {Op.getData("/")}));
            assertEquals(Code.BAD_ARGUMENTS.intValue(), r.code());
            r = raw.call(xid -> new dev.zkr.wire.Message.MultiReadRequest(xid, new Op[] {Op.getData("bad")}));
            assertEquals(Code.OK.intValue(), r.code(), "an invalid path fails its op alone");
            assertEquals(new OpResult.ErrorResult(Code.INVALID_PATH),
                    ((dev.zkr.wire.Message.MultiBody) r.body()).results()[0]);
        }
    }

    @Test
    void checkWatchesAnswersWhetherTheSessionHoldsAWatchOfTheTypeAndLeavesIt() {
        client.create("/cw/n", null, CreateMode.PERSISTENT, Parents.PERSISTENT);
        try (dev.zkr.server.RawClient raw = dev.zkr.server.RawClient.session(server.port(), 4000)) {
            raw.call(xid -> new dev.zkr.wire.Message.GetDataRequest(xid, "/cw/n", true));
            raw.call(xid -> new dev.zkr.wire.Message.AddWatchRequest(xid, "/cw",
                    dev.zkr.client.AddWatchMode.PERSISTENT_RECURSIVE));
            assertEquals(Code.OK.intValue(), check(raw, "/cw/n", dev.zkr.client.WatcherType.DATA));
            assertEquals(Code.OK.intValue(), check(raw, "/cw/n", dev.zkr.client.WatcherType.ANY));
            assertEquals(Code.NO_WATCHER.intValue(), check(raw, "/cw/n", dev.zkr.client.WatcherType.CHILDREN));
            assertEquals(Code.OK.intValue(), check(raw, "/cw", dev.zkr.client.WatcherType.PERSISTENT_RECURSIVE));
            assertEquals(Code.NO_WATCHER.intValue(), check(raw, "/cw", dev.zkr.client.WatcherType.PERSISTENT));
            assertEquals(Code.NO_WATCHER.intValue(), check(raw, "/cw/other", dev.zkr.client.WatcherType.ANY));
            // checking left the data watch: the change fires it (and the recursive watch: one event per session)
            client.setData("/cw/n", bytes("x"), -1);
            dev.zkr.wire.Message.WatchEvent e = assertInstanceOf(dev.zkr.wire.Message.WatchEvent.class,
                    raw.receive());
            assertEquals(dev.zkr.client.WatchedEvent.Type.NODE_DATA_CHANGED, e.type());
            assertEquals("/cw/n", e.path());
            assertEquals(Code.NO_WATCHER.intValue(), check(raw, "/cw/n", dev.zkr.client.WatcherType.DATA),
                    "fired, so gone");
        }
    }

    private static int check(dev.zkr.server.RawClient raw, String path, dev.zkr.client.WatcherType type) {
        return raw.call(xid -> new dev.zkr.wire.Message.CheckWatchesRequest(xid, path, type)).code();
    }
}
