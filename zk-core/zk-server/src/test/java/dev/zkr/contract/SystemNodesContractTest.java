package dev.zkr.contract;

import dev.zkr.client.Acl;
import dev.zkr.client.Acls;
import dev.zkr.client.Children;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Id;
import dev.zkr.client.NodeData;
import dev.zkr.client.Op;
import dev.zkr.client.OpResult;
import dev.zkr.client.Perms;
import dev.zkr.client.Stat;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException.Code;
import dev.zkr.server.RawClient;
import dev.zkr.wire.Message;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static dev.zkr.contract.NodeContractTest.bytes;
import static dev.zkr.contract.NodeContractTest.failure;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ZooKeeper's system nodes on a real standalone server, through the native client, as a ZooKeeper 3.9.3
 * standalone server shows them (the values below were read from one: Stats, ACLs, data, the answers to writes).
 */
class SystemNodesContractTest {

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

    private static Stat stat(long mtime, int version, int cversion, int aversion, int dataLength, int numChildren) {
        return new Stat(0, 0, 0, 0, mtime, version, cversion, aversion, 0, dataLength, numChildren);
    }

    @Test
    void theyReadAsZooKeeperShowsThem() {
        NodeData zk = client.getData("/zookeeper");
        assertArrayEquals(new byte[0], zk.data());
        assertEquals(stat(0, 0, -2, 0, 0, 2), zk.stat(), "ZooKeeper's cversion formula over two uncounted children");
        assertEquals(List.of("config", "quota"), client.getChildren("/zookeeper"));
        NodeData config = client.getData("/zookeeper/config");
        assertArrayEquals(new byte[0], config.data(), "a standalone server has no membership to show");
        assertEquals(stat(0, 0, 0, -1, 0, 0), config.stat());
        assertEquals(stat(0, 0, 0, 0, 0, 0), client.exists("/zookeeper/quota"));
        assertEquals(List.of(), client.getChildren("/zookeeper/quota"));
        assertEquals(List.of(new Acl(Perms.READ, new Id("world", "anyone"))), client.getAcl("/zookeeper/config").acls());
        assertEquals(Acls.OPEN_UNSAFE, client.getAcl("/zookeeper").acls());
        assertEquals(Acls.OPEN_UNSAFE, client.getAcl("/zookeeper/quota").acls());
        assertEquals(2, client.getAllChildrenNumber("/zookeeper"));
        assertEquals(0, client.getAllChildrenNumber("/zookeeper/config"));
    }

    @Test
    void theRootCountsZooKeeperAmongItsChildren() {
        client.create("/root-kid", null, CreateMode.PERSISTENT);
        Children root = client.getChildrenWithStat("/", null);
        assertTrue(root.names().contains("zookeeper"));
        assertTrue(root.names().contains("root-kid"));
        assertEquals(root.names().size(), root.stat().numChildren());
        assertEquals(root.stat(), client.exists("/"));
        assertEquals(root.stat(), client.getData("/").stat());
        // ZooKeeper's cversion: 2 x creations - children (a fresh root: -1, as ZooKeeper shows it)
        client.create("/root-kid2", null, CreateMode.PERSISTENT);
        client.delete("/root-kid2", -1);
        assertEquals(root.stat().cversion() + 2, client.exists("/").cversion());
        // a write's reply shows the root as reads do
        Stat set = client.setData("/", bytes("r"), -1);
        assertEquals(client.exists("/"), set);
        assertEquals(set.numChildren(), client.getChildren("/").size());
        List<OpResult> multi = client.multi(List.of(Op.setData("/", bytes("s"), -1)));
        assertEquals(client.exists("/"), assertInstanceOf(OpResult.SetDataResult.class, multi.get(0)).stat());
        Stat acl = client.setAcl("/", Acls.OPEN_UNSAFE, -1);
        assertEquals(client.exists("/"), acl);
        int all = client.getAllChildrenNumber("/");
        client.create("/root-kid/deeper", null, CreateMode.PERSISTENT);
        assertEquals(all + 1, client.getAllChildrenNumber("/"));
        List<OpResult> read = client.multiRead(List.of(Op.getChildren("/"), Op.getData("/zookeeper/config"),
                Op.getChildren("/zookeeper")));
        assertTrue(assertInstanceOf(OpResult.GetChildrenResult.class, read.get(0)).children().contains("zookeeper"));
        assertEquals(stat(0, 0, 0, -1, 0, 0), assertInstanceOf(OpResult.GetDataResult.class, read.get(1)).stat());
        assertEquals(List.of("config", "quota"),
                assertInstanceOf(OpResult.GetChildrenResult.class, read.get(2)).children());
    }

    @Test
    void writesAreRefusedAsZooKeeperRefusesThemAndZkrKeepsTheRestReadOnly() {
        // as ZooKeeper 3.9.3 answers
        for (String p : List.of("/zookeeper", "/zookeeper/config", "/zookeeper/quota")) {
            assertEquals(Code.BAD_ARGUMENTS, failure(client.deleteAsync(p, -1)).code(), p);
            assertEquals(Code.NODE_EXISTS, failure(client.createAsync(p, null, CreateMode.PERSISTENT)).code(), p);
        }
        assertEquals(Code.NO_AUTH, failure(client.setDataAsync("/zookeeper/config", bytes("x"), -1)).code());
        assertEquals(Code.NO_AUTH, failure(client.setAclAsync("/zookeeper/config", Acls.OPEN_UNSAFE, -1)).code());
        assertEquals(Code.NO_AUTH, failure(client.createAsync("/zookeeper/config/x", null, CreateMode.PERSISTENT))
                .code());
        // ZooKeeper takes these (its quotas live there); zkr has no quotas and keeps them read-only
        assertEquals(Code.BAD_ARGUMENTS, failure(client.setDataAsync("/zookeeper", bytes("x"), -1)).code());
        assertEquals(Code.BAD_ARGUMENTS, failure(client.setAclAsync("/zookeeper/quota", Acls.OPEN_UNSAFE, -1))
                .code());
        assertEquals(Code.BAD_ARGUMENTS, failure(client.createAsync("/zookeeper/quota/x", null,
                CreateMode.PERSISTENT)).code());
        assertEquals(Code.BAD_ARGUMENTS, failure(client.createAsync("/zookeeper/x", null,
                CreateMode.PERSISTENT_SEQUENTIAL)).code());
        // a multi: a check compares with their versions; a refused op fails the whole multi
        client.multi(List.of(Op.check("/zookeeper", 0), Op.check("/zookeeper/config", 0)));
        assertEquals(Code.BAD_VERSION, failure(client.multiAsync(List.of(Op.check("/zookeeper/quota", 3))))
                .code());
        assertEquals(Code.BAD_ARGUMENTS, failure(client.multiAsync(List.of(Op.create("/m1", null,
                CreateMode.PERSISTENT), Op.delete("/zookeeper/quota", -1)))).code());
        assertEquals(null, client.exists("/m1"), "nothing of the refused multi applied");
        // a sibling sharing the prefix is an ordinary node
        client.create("/zookeeper2", null, CreateMode.PERSISTENT);
        client.delete("/zookeeper2", -1);
        assertEquals(stat(0, 0, -2, 0, 0, 2), client.exists("/zookeeper"), "unchanged");
    }

    @Test
    void aWatchOnThemIsKeptAcrossSetWatchesAndNeverFires() {
        // Curator's EnsembleTracker watches /zookeeper/config; on a reconnect its setWatches must not hear a delete
        try (RawClient raw = RawClient.session(server.port(), 4000)) {
            Message.Reply set = raw.call(xid -> new Message.SetWatchesRequest(xid, 0,
                    new String[] {"/zookeeper/config", "/zookeeper", "/zookeeper/quota"}, new String[0],
                    new String[] {"/zookeeper"}, new String[0], new String[0]));
            assertEquals(Code.OK.intValue(), set.code(), "answered, with no event before it");
            assertEquals(Code.OK.intValue(), raw.call(xid -> new Message.CheckWatchesRequest(xid,
                    "/zookeeper/config", dev.zkr.client.WatcherType.DATA)).code(), "registered");
        }
    }
}
