package dev.zkr.server.zookeeper;

import dev.zkr.server.ServerFixture;
import dev.zkr.server.ZkServer;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The real Apache ZooKeeper 3.9.3 client against a real zkr server on loopback (ZooKeeper's protocol on zkr's client
 * port): the operations, Stat and errors, watches, multi, the negotiated timeout, and sessions: resumed by id and
 * password with their ephemerals and watches, expired, refused for a wrong password.
 */
@Timeout(120)
class ApacheClientTest {

    private static final List<org.apache.zookeeper.data.ACL> OPEN = ZooDefs.Ids.OPEN_ACL_UNSAFE;

    @TempDir
    Path dir;
    ZkServer server;
    final List<ZooKeeper> clients = new ArrayList<>();

    @BeforeEach
    void start() {
        // sessions of 300 ms to 30 s; TTL nodes checked every 25 ms
        server = ZkServer.start(ServerFixture.config(dir).containerCheckInterval(java.time.Duration.ofMillis(25))
                .build());
    }

    @AfterEach
    void stop() throws InterruptedException {
        for (ZooKeeper zk : clients) {
            zk.close(5_000);
        }
        server.close();
    }

    private ZooKeeper client(ApacheClients.Events events) {
        return client(events, 10_000);
    }

    private ZooKeeper client(ApacheClients.Events events, int timeoutMs) {
        ZooKeeper zk = ApacheClients.connect(server.connectString(), timeoutMs, events);
        clients.add(zk);
        return zk;
    }

    /** createTTL alone and in a multi, as ZooKeeper.create(..., ttl) sends them; the nodes expire; bad TTLs refused. */
    @Test
    void ttlNodesOfTheApacheClientExpire() throws Exception {
        ApacheClients.Events events = new ApacheClients.Events();
        ZooKeeper zk = client(events);
        Stat stat = new Stat();
        // the TTL must outlast the next calls (exists sets the watches that see the deletions): 100 ms did not on a
        // loaded machine
        assertEquals("/ttl", zk.create("/ttl", new byte[] {1}, OPEN, CreateMode.PERSISTENT_WITH_TTL, stat, 1000));
        assertEquals(0, stat.getEphemeralOwner(), "as ZooKeeper shows a TTL node to clients");
        List<OpResult> results = zk.multi(List.of(Op.create("/seq-", new byte[0], OPEN,
                CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL, 1000)));
        String seq = ((OpResult.CreateResult) results.get(0)).getPath();
        assertEquals("/seq-0000000001", seq);
        assertNotNull(zk.exists("/ttl", true));
        assertNotNull(zk.exists(seq, true));
        List<String> deleted = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            WatchedEvent e = events.next();
            assertEquals(Watcher.Event.EventType.NodeDeleted, e.getType());
            deleted.add(e.getPath());
        }
        assertEquals(java.util.Set.of("/ttl", seq), java.util.Set.copyOf(deleted));
        // the Apache client checks TTLs itself (a bad one reaches the server only in a raw record: the server's
        // answers are in RequestTranslationTest and TtlNodesTest)
        assertThrows(IllegalArgumentException.class,
                () -> zk.create("/bad", new byte[0], OPEN, CreateMode.PERSISTENT_WITH_TTL, stat, 0));
        assertThrows(IllegalArgumentException.class,
                () -> zk.create("/bad", new byte[0], OPEN, CreateMode.PERSISTENT_WITH_TTL));
        assertNull(zk.exists("/bad", false));
    }

    @Test
    void nodesStatAndErrorsAsZooKeeperAnswersThem() throws Exception {
        ZooKeeper zk = client(new ApacheClients.Events());
        assertEquals("/a", zk.create("/a", new byte[] {1}, OPEN, CreateMode.PERSISTENT));
        Stat created = new Stat();
        assertEquals("/a/b", zk.create("/a/b", new byte[] {2, 3}, OPEN, CreateMode.PERSISTENT, created)); // create2
        assertEquals(2, created.getDataLength());
        assertEquals(created.getCzxid(), created.getMzxid());
        String seq = zk.create("/a/s-", new byte[0], OPEN, CreateMode.EPHEMERAL_SEQUENTIAL);
        assertEquals("/a/s-0000000001", seq);

        Stat stat = new Stat();
        assertArrayEquals(new byte[] {1}, zk.getData("/a", false, stat));
        assertEquals(2, stat.getNumChildren());
        assertEquals(0, stat.getVersion());
        assertEquals(2, stat.getCversion());
        assertEquals(zk.getSessionId(), zk.exists(seq, false).getEphemeralOwner());

        Stat set = zk.setData("/a", new byte[] {9}, 0);
        assertEquals(1, set.getVersion());
        assertThrows(KeeperException.BadVersionException.class, () -> zk.setData("/a", new byte[0], 0));
        assertThrows(KeeperException.NoNodeException.class, () -> zk.getData("/missing", false, null));
        assertThrows(KeeperException.NodeExistsException.class,
                () -> zk.create("/a", new byte[0], OPEN, CreateMode.PERSISTENT));
        assertThrows(KeeperException.NotEmptyException.class, () -> zk.delete("/a", -1));
        assertThrows(KeeperException.NoChildrenForEphemeralsException.class,
                () -> zk.create(seq + "/x", new byte[0], OPEN, CreateMode.PERSISTENT));
        assertNull(zk.exists("/missing", false));
        assertEquals(List.of("b", "s-0000000001"), sorted(zk.getChildren("/a", false)));
        Stat parent = new Stat();
        zk.getChildren("/a", false, parent); // getChildren2
        assertEquals(2, parent.getNumChildren());
        zk.delete("/a/b", -1);
        assertNull(zk.exists("/a/b", false));
        assertEquals(OPEN, zk.getACL("/a", new Stat()));
        zk.sync("/a");
    }

    @Test
    void watchesFireAsZooKeeperFiresThem() throws Exception {
        ApacheClients.Events events = new ApacheClients.Events();
        ZooKeeper zk = client(events);
        ZooKeeper other = client(new ApacheClients.Events());
        zk.create("/w", new byte[0], OPEN, CreateMode.PERSISTENT);
        zk.getData("/w", true, null);
        zk.getChildren("/w", true);
        assertNull(zk.exists("/w/new", true));
        other.setData("/w", new byte[] {1}, -1);
        assertEvent(events.next(), Watcher.Event.EventType.NodeDataChanged, "/w");
        other.create("/w/new", new byte[0], OPEN, CreateMode.PERSISTENT);
        WatchedEvent first = events.next();
        WatchedEvent second = events.next();
        // ZooKeeper fires the created node's watch before the parent's child watch
        assertEvent(first, Watcher.Event.EventType.NodeCreated, "/w/new");
        assertEvent(second, Watcher.Event.EventType.NodeChildrenChanged, "/w");

        zk.addWatch("/w", AddWatchMode.PERSISTENT_RECURSIVE);
        other.create("/w/new/deep", new byte[0], OPEN, CreateMode.PERSISTENT);
        assertEvent(events.next(), Watcher.Event.EventType.NodeCreated, "/w/new/deep"); // the node that changed
        other.delete("/w/new/deep", -1);
        assertEvent(events.next(), Watcher.Event.EventType.NodeDeleted, "/w/new/deep");
    }

    @Test
    void multiCommitsAllOrNothing() throws Exception {
        ZooKeeper zk = client(new ApacheClients.Events());
        zk.create("/m", new byte[0], OPEN, CreateMode.PERSISTENT);
        List<OpResult> ok = zk.multi(List.of(
                Op.create("/m/1", new byte[] {1}, OPEN, CreateMode.PERSISTENT),
                Op.setData("/m", new byte[] {2}, 0),
                Op.check("/m", 1),
                Op.delete("/m/1", 0)));
        assertInstanceOf(OpResult.CreateResult.class, ok.get(0));
        assertEquals(1, ((OpResult.SetDataResult) ok.get(1)).getStat().getVersion());
        assertInstanceOf(OpResult.CheckResult.class, ok.get(2));
        assertInstanceOf(OpResult.DeleteResult.class, ok.get(3));

        KeeperException failed = assertThrows(KeeperException.BadVersionException.class, () -> zk.multi(List.of(
                Op.create("/m/2", new byte[0], OPEN, CreateMode.PERSISTENT),
                Op.check("/m", 7),
                Op.delete("/m", -1))));
        List<OpResult> results = failed.getResults();
        assertEquals(KeeperException.Code.OK.intValue(), ((OpResult.ErrorResult) results.get(0)).getErr());
        assertEquals(KeeperException.Code.BADVERSION.intValue(), ((OpResult.ErrorResult) results.get(1)).getErr());
        assertEquals(KeeperException.Code.RUNTIMEINCONSISTENCY.intValue(),
                ((OpResult.ErrorResult) results.get(2)).getErr());
        assertNull(zk.exists("/m/2", false), "a failed multi left a node behind");
    }

    @Test
    void digestAuthAndAclsAsZooKeeperChecksThem() throws Exception {
        ZooKeeper owner = client(new ApacheClients.Events());
        owner.addAuthInfo("digest", "alice:secret".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        owner.create("/secret", new byte[] {1}, ZooDefs.Ids.CREATOR_ALL_ACL, CreateMode.PERSISTENT);
        List<org.apache.zookeeper.data.ACL> acl = owner.getACL("/secret", new Stat());
        assertEquals(1, acl.size());
        assertEquals("digest", acl.get(0).getId().getScheme());
        assertTrue(acl.get(0).getId().getId().startsWith("alice:"), acl.toString());
        assertArrayEquals(new byte[] {1}, owner.getData("/secret", false, null));

        ZooKeeper stranger = client(new ApacheClients.Events());
        assertThrows(KeeperException.NoAuthException.class, () -> stranger.getData("/secret", false, null));
        stranger.addAuthInfo("digest", "alice:secret".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertArrayEquals(new byte[] {1}, stranger.getData("/secret", false, null));

        // an authentication the server refuses: ZooKeeper's client reports AuthFailed (the server drops it)
        ApacheClients.Events events = new ApacheClients.Events();
        ZooKeeper refused = client(events);
        refused.addAuthInfo("no-such-scheme", new byte[] {1});
        events.awaitState(Watcher.Event.KeeperState.AuthFailed);
    }

    @Test
    void theTimeoutIsNegotiatedWithinTheServersBounds() {
        // its own bounds, 3 s to 30 s: ZooKeeper's client waits (requested timeout / servers) for each connection
        // attempt, so the raised request asks for 1 s, not the 50 ms that a loaded machine cannot connect within
        server.close();
        server = ZkServer.start(ServerFixture.config(dir).minSessionTimeout(java.time.Duration.ofSeconds(3))
                .maxSessionTimeout(java.time.Duration.ofSeconds(30)).build());
        assertEquals(3_000, client(new ApacheClients.Events(), 1_000).getSessionTimeout());
        assertEquals(30_000, client(new ApacheClients.Events(), 3_600_000).getSessionTimeout());
        assertEquals(4_000, client(new ApacheClients.Events(), 4_000).getSessionTimeout());
    }

    @Test
    void aSessionResumesOnTheSameServerWithItsEphemeralsAndWatches() throws Exception {
        ApacheClients.Events events = new ApacheClients.Events();
        ZooKeeper zk = client(events);
        ZooKeeper other = client(new ApacheClients.Events());
        long session = zk.getSessionId();
        zk.create("/eph", new byte[0], OPEN, CreateMode.EPHEMERAL);
        zk.create("/watched", new byte[0], OPEN, CreateMode.PERSISTENT);
        zk.getData("/watched", true, null);

        // the connection drops; the client reconnects with its session id and password (and its watches)
        int connectedBefore = count(events, Watcher.Event.KeeperState.SyncConnected);
        zk.getTestable().closeSocket();
        ApacheClients.await("reconnected", () -> count(events, Watcher.Event.KeeperState.SyncConnected)
                > connectedBefore);
        assertEquals(session, zk.getSessionId());
        other.setData("/watched", new byte[] {1}, -1);
        assertEvent(events.next(), Watcher.Event.EventType.NodeDataChanged, "/watched");
        assertEquals(session, other.exists("/eph", false).getEphemeralOwner());

        // another client object takes the session over by id and password
        ApacheClients.Events takeover = new ApacheClients.Events();
        ZooKeeper second = ApacheClients.resume(server.connectString(), 10_000, takeover, session,
                zk.getSessionPasswd());
        clients.add(second);
        ApacheClients.await("resumed", () -> second.getState() == ZooKeeper.States.CONNECTED);
        assertEquals(session, second.getSessionId());
        assertEquals(session, second.exists("/eph", false).getEphemeralOwner());
    }

    /**
     * ZooKeeper's protocol keeps ZooKeeper's write semantics (docs/exactly-once.md): a new client object that takes an
     * old session over starts its xids at 1 again, and its writes are applied as new ones, not answered as writes
     * sent again (zkr's duplicate check is for zkr's own protocol only).
     */
    @Test
    void aNewClientObjectOnAnOldSessionHasItsWritesApplied() throws Exception {
        ZooKeeper zk = client(new ApacheClients.Events());
        for (int i = 0; i < 5; i++) {
            zk.create("/first-" + i, new byte[0], OPEN, CreateMode.PERSISTENT);
        }
        ZooKeeper second = ApacheClients.resume(server.connectString(), 10_000, new ApacheClients.Events(),
                zk.getSessionId(), zk.getSessionPasswd());
        clients.add(second);
        ApacheClients.await("resumed", () -> second.getState() == ZooKeeper.States.CONNECTED);
        for (int i = 0; i < 5; i++) {
            assertEquals("/second-" + i, second.create("/second-" + i, new byte[0], OPEN, CreateMode.PERSISTENT));
        }
        assertEquals(1, second.setData("/first-0", new byte[] {1}, 0).getVersion());
        assertNotNull(second.exists("/second-4", false));
    }

    @Test
    void aWrongPasswordIsRefusedAsAnExpiredSession() throws Exception {
        ZooKeeper zk = client(new ApacheClients.Events());
        byte[] wrong = zk.getSessionPasswd().clone();
        wrong[0] ^= 1;
        ApacheClients.Events events = new ApacheClients.Events();
        ZooKeeper impostor = ApacheClients.resume(server.connectString(), 10_000, events, zk.getSessionId(), wrong);
        clients.add(impostor);
        events.awaitState(Watcher.Event.KeeperState.Expired);
        assertThrows(KeeperException.SessionExpiredException.class, () -> impostor.exists("/", false));
        assertNotNull(zk.exists("/", false), "the real owner lost its session");
    }

    @Test
    void anExpiredSessionGetsSessionExpired() throws Exception {
        ApacheClients.Events events = new ApacheClients.Events();
        ZooKeeper zk = client(events);
        ZooKeeper other = client(new ApacheClients.Events());
        long session = zk.getSessionId();
        byte[] password = zk.getSessionPasswd();
        zk.create("/gone", new byte[0], OPEN, CreateMode.EPHEMERAL);
        assertTrue(server.expireSession(session));
        events.awaitState(Watcher.Event.KeeperState.Expired);
        assertThrows(KeeperException.SessionExpiredException.class, () -> zk.exists("/", false));
        assertNull(other.exists("/gone", false));

        ApacheClients.Events late = new ApacheClients.Events();
        ZooKeeper again = ApacheClients.resume(server.connectString(), 10_000, late, session, password);
        clients.add(again);
        late.awaitState(Watcher.Event.KeeperState.Expired);
    }

    @Test
    void aClientThatHasSeenMoreThanTheServerIsRefusedAndMovesOn() throws Exception {
        // two servers behind one address: the session lives on A; B (a fresh standalone server) is behind it
        try (ZkServer behind = ZkServer.start(ServerFixture.config(dir.resolve("b")).build());
             Relay relay = new Relay(server.port())) {
            ApacheClients.Events events = new ApacheClients.Events();
            ZooKeeper zk = ApacheClients.connect(relay.connectString(), 10_000, events);
            clients.add(zk);
            for (int i = 0; i < 20; i++) {
                zk.create("/n" + i, new byte[0], OPEN, CreateMode.PERSISTENT);
            }
            zk.create("/eph", new byte[0], OPEN, CreateMode.EPHEMERAL);
            assertTrue(zk.exists("/n19", false).getMzxid() > behind.lastZxid());

            int attemptsBefore = relay.connections();
            relay.target(behind.port());
            relay.cut();
            // B is asked, and refuses without an answer (had it answered, the client would have a new or an expired
            // session): the client keeps trying
            ApacheClients.await("the client tried the server behind", () -> relay.connections() >= attemptsBefore + 2);
            assertEquals(ZooKeeper.States.CONNECTING, zk.getState());
            relay.target(server.port());
            ApacheClients.await("back on A", () -> zk.getState() == ZooKeeper.States.CONNECTED);
            assertNotNull(zk.exists("/eph", false));
            assertEquals(zk.getSessionId(), zk.exists("/eph", false).getEphemeralOwner());
            assertTrue(!events.states.contains(Watcher.Event.KeeperState.Expired), "states " + events.states);
        }
    }

    private static int count(ApacheClients.Events events, Watcher.Event.KeeperState state) {
        return (int) events.states.stream().filter(s -> s == state).count();
    }

    private static void assertEvent(WatchedEvent e, Watcher.Event.EventType type, String path) {
        assertEquals(type, e.getType(), "event " + e);
        assertEquals(path, e.getPath(), "event " + e);
        assertEquals(Watcher.Event.KeeperState.SyncConnected, e.getState());
        assertNotEquals(0, e.getZxid(), "event " + e);
    }

    private static List<String> sorted(List<String> names) {
        List<String> s = new ArrayList<>(names);
        s.sort(null);
        return s;
    }
}
