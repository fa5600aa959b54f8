package dev.zkr.server;

import dev.zkr.client.Acl;
import dev.zkr.client.Acls;
import dev.zkr.client.ConnectionState;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Id;
import dev.zkr.client.NodeAcl;
import dev.zkr.client.Op;
import dev.zkr.client.OpResult;
import dev.zkr.client.Perms;
import dev.zkr.client.Stat;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** ACLs and authentication over real sockets against a standalone server, checked as ZooKeeper checks them. */
class AclTest {

    private static final byte[] ALICE = "alice:secret".getBytes(StandardCharsets.UTF_8);
    private static final byte[] BOB = "bob:hunter2".getBytes(StandardCharsets.UTF_8);
    private static final Id ALICE_ID = Acls.digest("alice", "secret");

    @TempDir
    Path dir;
    private final List<AutoCloseable> open = new ArrayList<>();
    private ZkServer server;

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        if (server != null) {
            server.close();
        }
    }

    private ZkServer start(Consumer<ServerConfig.Builder> custom) {
        ServerConfig.Builder b = ServerFixture.config(dir);
        custom.accept(b);
        server = ZkServer.start(b.build());
        return server;
    }

    private ZkClient client(byte[]... auths) {
        var b = ZkClient.builder().connectString(server.connectString()).sessionTimeout(Duration.ofSeconds(10));
        for (byte[] a : auths) {
            b.authInfo("digest", a);
        }
        ZkClient c = b.build();
        open.add(c);
        return c;
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static List<Acl> worldWithout(int perm) {
        return List.of(new Acl(Perms.ALL & ~perm, Acls.ANYONE_ID_UNSAFE));
    }

    @Test
    void digestMatchesZooKeepersGenerateDigest() {
        // values printed by org.apache.zookeeper.server.auth.DigestAuthenticationProvider.generateDigest (3.9.3)
        assertEquals("super:xQJmxLMiHGwaqBvst5y6rkB6HQs=", Acls.generateDigest("super:admin"));
        assertEquals("alice:aYXlLOpEooaV1cRAvUL1fp9Qt7E=", ALICE_ID.id());
    }

    @Test
    void everyOperationNeedsExactlyZooKeepersPermission() {
        start(b -> { });
        ZkClient c = client();
        // CREATE on the parent
        c.create("/c", b(""), CreateMode.PERSISTENT, worldWithout(Perms.CREATE));
        assertThrows(ZkException.NoAuth.class, () -> c.create("/c/x", b(""), CreateMode.PERSISTENT));
        // DELETE on the parent (the node itself may forbid everything)
        c.create("/d", b(""), CreateMode.PERSISTENT, worldWithout(Perms.DELETE));
        c.create("/d/x", b(""), CreateMode.PERSISTENT, List.of(new Acl(Perms.READ, Acls.ANYONE_ID_UNSAFE)));
        assertThrows(ZkException.NoAuth.class, () -> c.delete("/d/x", -1));
        c.create("/d2", b(""), CreateMode.PERSISTENT);
        c.create("/d2/x", b(""), CreateMode.PERSISTENT, worldWithout(Perms.ALL & ~Perms.READ));
        c.delete("/d2/x", -1); // nothing on the node itself is needed
        // the parent's DELETE is checked before the node is looked up, as in ZooKeeper
        assertThrows(ZkException.NoAuth.class, () -> c.delete("/d/missing", -1));
        // WRITE for setData
        c.create("/w", b("v"), CreateMode.PERSISTENT, worldWithout(Perms.WRITE));
        assertThrows(ZkException.NoAuth.class, () -> c.setData("/w", b("x"), -1));
        assertArrayEquals(b("v"), c.getData("/w").data());
        // READ for getData, getChildren and (as ZooKeeper 3.9's FinalRequestProcessor) exists of an existing node
        c.create("/r", b("secret"), CreateMode.PERSISTENT, worldWithout(Perms.READ));
        assertThrows(ZkException.NoAuth.class, () -> c.getData("/r"));
        assertThrows(ZkException.NoAuth.class, () -> c.getChildren("/r"));
        assertThrows(ZkException.NoAuth.class, () -> c.exists("/r", e -> { }));
        assertNull(c.exists("/r/missing")); // a missing node needs nothing
        assertNotNull(c.exists("/w"));
        c.setData("/r", b("x"), -1);
        // getAcl: READ or ADMIN; setAcl: ADMIN
        NodeAcl readable = c.getAcl("/r"); // ADMIN without READ
        assertEquals(worldWithout(Perms.READ), readable.acls());
        c.create("/a", b(""), CreateMode.PERSISTENT, worldWithout(Perms.ADMIN));
        assertEquals(worldWithout(Perms.ADMIN), c.getAcl("/a").acls()); // READ without ADMIN
        assertThrows(ZkException.NoAuth.class, () -> c.setAcl("/a", Acls.OPEN_UNSAFE, -1));
        c.create("/none", b(""), CreateMode.PERSISTENT, List.of(new Acl(Perms.WRITE, Acls.ANYONE_ID_UNSAFE)));
        assertThrows(ZkException.NoAuth.class, () -> c.getAcl("/none"));
        // a NoAuth read leaves no watch
        assertThrows(ZkException.NoAuth.class, () -> c.getData("/r", e -> { }));
        assertTrue(c.watchedPaths().isEmpty(), c.watchedPaths().toString());
    }

    @Test
    void watchEventsNeedReadOnTheNodeTheyAreAbout() throws InterruptedException {
        start(b -> { });
        ZkClient alice = client(ALICE);
        ZkClient watcher = client();
        java.util.concurrent.BlockingQueue<String> events = new java.util.concurrent.LinkedBlockingQueue<>();
        watcher.addWatch("/", dev.zkr.client.AddWatchMode.PERSISTENT_RECURSIVE,
                e -> events.add(e.type() + " " + e.path()));
        assertNull(watcher.exists("/secret", e -> events.add("exists " + e.type() + " " + e.path())));
        alice.create("/secret", b("s"), CreateMode.PERSISTENT, List.of(new Acl(Perms.ALL, ALICE_ID)));
        alice.setData("/secret", b("t"), -1);
        alice.create("/open", b(""), CreateMode.PERSISTENT);
        // events come in order: the first one this session may see is /open's; /secret's were dropped (ZooKeeper
        // 3.9 checks READ on the node's ACL before sending any watch event)
        assertEquals("NODE_CREATED /open", events.poll(10, java.util.concurrent.TimeUnit.SECONDS));
        alice.setAcl("/secret", List.of(new Acl(Perms.ALL, ALICE_ID), new Acl(Perms.READ, Acls.ANYONE_ID_UNSAFE)),
                -1);
        alice.setData("/secret", b("u"), -1);
        // now readable: the recursive watch gets it, and so does the client's exists watcher on that path (the
        // server spent that one-shot watch on the dropped creation, but the client, like ZooKeeper's, hands an
        // event to every local watcher of its path and type)
        java.util.Set<String> seen = new java.util.HashSet<>();
        seen.add(events.poll(10, java.util.concurrent.TimeUnit.SECONDS));
        seen.add(events.poll(10, java.util.concurrent.TimeUnit.SECONDS));
        assertEquals(java.util.Set.of("NODE_DATA_CHANGED /secret", "exists NODE_DATA_CHANGED /secret"), seen);
        assertTrue(events.isEmpty(), events.toString());
    }

    @Test
    void aForbiddenOpFailsTheWholeMultiWithNoAuthAtThatOp() {
        start(b -> { });
        ZkClient c = client();
        c.create("/locked", b("v"), CreateMode.PERSISTENT, Acls.READ_ONLY);
        ZkException e = assertThrows(ZkException.NoAuth.class, () -> c.multi(List.of(
                Op.create("/m1", b(""), CreateMode.PERSISTENT),
                Op.setData("/locked", b("x"), -1),
                Op.create("/m2", b(""), CreateMode.PERSISTENT))));
        List<OpResult> results = e.multiResults();
        assertEquals(ZkException.Code.OK, ((OpResult.ErrorResult) results.get(0)).code());
        assertEquals(ZkException.Code.NO_AUTH, ((OpResult.ErrorResult) results.get(1)).code());
        assertEquals(ZkException.Code.RUNTIME_INCONSISTENCY, ((OpResult.ErrorResult) results.get(2)).code());
        assertNull(c.exists("/m1"));
        assertArrayEquals(b("v"), c.getData("/locked").data());
        // a check needs READ; a create with an ACL inside a multi stores it
        c.create("/hidden", b(""), CreateMode.PERSISTENT, worldWithout(Perms.READ));
        assertThrows(ZkException.NoAuth.class, () -> c.multi(List.of(Op.check("/hidden", -1))));
        c.multi(List.of(Op.create("/m3", b(""), CreateMode.PERSISTENT, Acls.READ_ONLY)));
        assertEquals(Acls.READ_ONLY, c.getAcl("/m3").acls());
    }

    @Test
    void digestAuthenticationGrantsItsIdAndAWrongPasswordIsAnotherId() {
        start(b -> { });
        ZkClient alice = client(ALICE);
        alice.create("/alice", b("a"), CreateMode.PERSISTENT, List.of(new Acl(Perms.ALL, ALICE_ID)));
        assertArrayEquals(b("a"), alice.getData("/alice").data());
        ZkClient wrong = client(b("alice:guess"));
        assertThrows(ZkException.NoAuth.class, () -> wrong.getData("/alice"));
        ZkClient anonymous = client();
        assertThrows(ZkException.NoAuth.class, () -> anonymous.setData("/alice", b("x"), -1));
        // masked for sessions without ADMIN: READ only for everyone
        alice.setAcl("/alice", List.of(new Acl(Perms.ALL, ALICE_ID), new Acl(Perms.READ, Acls.ANYONE_ID_UNSAFE)),
                -1);
        assertEquals(new Id("digest", "alice:x"), anonymous.getAcl("/alice").acls().get(0).id());
        assertEquals(ALICE_ID, alice.getAcl("/alice").acls().get(0).id());
    }

    @Test
    void refusedAuthenticationFailsTheCallAndLeavesEveryoneServed() {
        start(b -> { });
        ZkClient c = client();
        ZkClient other = client(ALICE);
        assertThrows(ZkException.AuthFailed.class, () -> c.addAuthInfo("kerberos", b("ticket")));
        assertThrows(ZkException.AuthFailed.class, () -> c.addAuthInfo("digest", b("no-colon")));
        // the connection and session stay; other sessions are unaffected
        c.create("/after", b(""), CreateMode.PERSISTENT);
        assertEquals(ConnectionState.CONNECTED, c.state());
        other.create("/other", b(""), CreateMode.PERSISTENT, Acls.CREATOR_ALL);
        assertNotNull(other.getData("/other"));
    }

    @Test
    void aRefusedBuilderAuthenticationFailsTheNextRequestOnceAndIsNotResent() {
        start(b -> { });
        ZkClient c = ZkClient.builder().connectString(server.connectString()).authInfo("kerberos", b("ticket"))
                .build();
        open.add(c);
        ServerFixture.await("the refusal", Duration.ofSeconds(10), () -> {
            try {
                c.exists("/");
                return false;
            } catch (ZkException.AuthFailed e) {
                return true;
            }
        });
        assertNotNull(c.exists("/")); // reported once; the session goes on unauthenticated
    }

    @Test
    void malformedAclAndAuthMessagesGetTypedErrorsAndTheConnectionStays() {
        start(b -> { });
        try (RawClient c = RawClient.session(server.port(), 5000)) {
            int invalid = ZkException.Code.INVALID_ACL.intValue();
            assertEquals(invalid, c.call(x -> new dev.zkr.wire.Message.CreateAclRequest(x, "/n", b(""),
                    CreateMode.PERSISTENT, null)).code());
            assertEquals(invalid, c.call(x -> new dev.zkr.wire.Message.CreateAclRequest(x, "/n", b(""),
                    CreateMode.PERSISTENT, new Acl[0])).code());
            assertEquals(invalid, c.call(x -> new dev.zkr.wire.Message.SetAclRequest(x, "/", null, -1)).code());
            int authFailed = ZkException.Code.AUTH_FAILED.intValue();
            assertEquals(authFailed, c.call(x -> new dev.zkr.wire.Message.AuthRequest(x, null, null)).code());
            assertEquals(authFailed, c.call(x -> new dev.zkr.wire.Message.AuthRequest(x, "digest\n forged line",
                    b("a:b"))).code());
            assertEquals(authFailed, c.call(x -> new dev.zkr.wire.Message.AuthRequest(x, "digest", null)).code());
            assertEquals(0, c.call(x -> new dev.zkr.wire.Message.GetAclRequest(x, "/")).code());
            assertEquals(ZkException.Code.INVALID_PATH.intValue(),
                    c.call(x -> new dev.zkr.wire.Message.GetAclRequest(x, "no-slash")).code());
        }
    }

    @Test
    void ipSchemeMatchesAddressesAndCidrBlocks() {
        start(b -> { });
        ZkClient c = client();
        c.create("/ip", b("x"), CreateMode.PERSISTENT, List.of(Acl.of(Perms.ALL, "ip", "127.0.0.1")));
        assertArrayEquals(b("x"), c.getData("/ip").data());
        c.create("/cidr", b("x"), CreateMode.PERSISTENT, List.of(Acl.of(Perms.ALL, "ip", "127.0.0.0/8")));
        assertArrayEquals(b("x"), c.getData("/cidr").data());
        c.create("/elsewhere", b("x"), CreateMode.PERSISTENT, List.of(Acl.of(Perms.ALL, "ip", "10.0.0.0/8"),
                Acl.of(Perms.ALL, "ip", "::1/128")));
        assertThrows(ZkException.NoAuth.class, () -> c.getData("/elsewhere"));
        // ip ids are not authenticated identities for auth: ACLs
        assertThrows(ZkException.InvalidAcl.class, () -> c.create("/auth", b(""), CreateMode.PERSISTENT,
                Acls.CREATOR_ALL));
    }

    @Test
    void superDigestPassesEveryCheck() {
        start(b -> b.superDigest(Acls.generateDigest("super:admin")));
        ZkClient alice = client(ALICE);
        alice.create("/private", b("p"), CreateMode.PERSISTENT, Acls.CREATOR_ALL);
        alice.create("/private/kid", b(""), CreateMode.PERSISTENT, Acls.CREATOR_ALL);
        ZkClient admin = client(b("super:admin"));
        assertArrayEquals(b("p"), admin.getData("/private").data());
        admin.delete("/private/kid", -1);
        admin.setAcl("/private", Acls.OPEN_UNSAFE, -1);
        ZkClient notSuper = client(b("super:wrong"));
        notSuper.setData("/private", b("open now"), -1);
    }

    @Test
    void authSchemeExpandsToTheSessionsIdsOrIsInvalidWithoutAny() {
        start(b -> { });
        ZkClient anonymous = client();
        assertThrows(ZkException.InvalidAcl.class, () -> anonymous.create("/x", b(""), CreateMode.PERSISTENT,
                Acls.CREATOR_ALL));
        assertNull(anonymous.exists("/x"));
        ZkClient both = client(ALICE, BOB);
        both.create("/x", b(""), CreateMode.PERSISTENT, Acls.CREATOR_ALL);
        assertEquals(List.of(new Acl(Perms.ALL, ALICE_ID), new Acl(Perms.ALL, Acls.digest("bob", "hunter2"))),
                both.getAcl("/x").acls());
        assertThrows(ZkException.InvalidAcl.class, () -> anonymous.setAcl("/", Acls.CREATOR_ALL, -1));
    }

    @Test
    void setAclCountsAversionAndChecksIt() {
        start(b -> { });
        ZkClient c = client(ALICE);
        c.create("/v", b(""), CreateMode.PERSISTENT);
        Stat s0 = c.exists("/v");
        assertEquals(0, s0.aversion());
        Stat s1 = c.setAcl("/v", List.of(new Acl(Perms.ALL, ALICE_ID)), 0);
        assertEquals(1, s1.aversion());
        assertEquals(0, s1.version());
        assertThrows(ZkException.BadVersion.class, () -> c.setAcl("/v", Acls.OPEN_UNSAFE, 0));
        Stat s2 = c.setAcl("/v", Acls.OPEN_UNSAFE, -1);
        assertEquals(2, s2.aversion());
        assertEquals(2, c.getAcl("/v").stat().aversion());
        assertEquals(s2.mzxid(), s0.mzxid(), "an ACL change is not a data change");
        assertThrows(ZkException.NoNode.class, () -> c.setAcl("/missing", Acls.OPEN_UNSAFE, -1));
        assertThrows(ZkException.NoNode.class, () -> c.getAcl("/missing"));
    }

    @Test
    void malformedAclsAreInvalid() {
        start(b -> { });
        ZkClient c = client();
        List<List<Acl>> bad = List.of(
                List.of(new Acl(0, Acls.ANYONE_ID_UNSAFE)),
                List.of(new Acl(64 | Perms.READ, Acls.ANYONE_ID_UNSAFE)),
                List.of(Acl.of(Perms.ALL, "ip", "10.0.0.0/33")),
                List.of(Acl.of(Perms.ALL, "ip", "not-an-address")),
                List.of(Acl.of(Perms.ALL, "ip", "10.0.0.0/x")),
                List.of(Acl.of(Perms.ALL, "foo", "bar")),
                List.of(Acl.of(Perms.ALL, "digest", "nocolon")),
                List.of(Acl.of(Perms.ALL, "world", "someone")));
        for (List<Acl> acl : bad) {
            assertThrows(ZkException.InvalidAcl.class, () -> c.create("/bad", b(""), CreateMode.PERSISTENT, acl),
                    acl.toString());
            assertThrows(ZkException.InvalidAcl.class, () -> c.setAcl("/", acl, -1), acl.toString());
        }
        assertThrows(ZkException.InvalidAcl.class, () -> c.create("/bad", b(""), CreateMode.PERSISTENT, List.of()));
        assertNull(c.exists("/bad"));
        assertEquals(Acls.OPEN_UNSAFE, c.getAcl("/").acls());
    }

    @Test
    void aClientThatAuthenticatesAfterCreatingNodesGainsAccessFromThen() {
        start(b -> { });
        ZkClient c = client();
        c.create("/before", b("open"), CreateMode.PERSISTENT);
        c.create("/alices", b("a"), CreateMode.PERSISTENT, List.of(new Acl(Perms.ALL, ALICE_ID)));
        assertThrows(ZkException.NoAuth.class, () -> c.getData("/alices"));
        c.addAuthInfo("digest", ALICE);
        assertArrayEquals(b("a"), c.getData("/alices").data());
        assertArrayEquals(b("open"), c.getData("/before").data());
        assertEquals(Acls.OPEN_UNSAFE, c.getAcl("/before").acls());
    }

    @Test
    void authIsResentAfterAReconnectAndAfterASessionRenewal() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        start(b -> b.port(port));
        ZkClient c = client();
        c.addAuthInfo("digest", ALICE);
        c.create("/alices", b("a"), CreateMode.PERSISTENT, Acls.CREATOR_ALL);
        List<ConnectionState> states = new CopyOnWriteArrayList<>();
        c.addConnectionStateListener((cl, st) -> states.add(st));
        long session = c.sessionId();
        server.close();
        server = ZkServer.start(ServerFixture.config(dir).port(port).build());
        ServerFixture.await("reconnected", Duration.ofSeconds(15),
                () -> states.contains(ConnectionState.RECONNECTED));
        assertEquals(session, c.sessionId());
        assertArrayEquals(b("a"), c.getData("/alices").data());
        server.expireSession(session);
        ServerFixture.await("a new session", Duration.ofSeconds(15),
                () -> states.contains(ConnectionState.CONNECTED) && c.sessionId() != session);
        assertArrayEquals(b("a"), c.getData("/alices").data());
        c.setData("/alices", b("b"), -1);
    }

    @Test
    void aclsSurviveARestartFromTheLogAndFromASnapshot() throws IOException {
        start(b -> b.snapshotInterval(1_000_000));
        List<Acl> alices = List.of(new Acl(Perms.ALL, ALICE_ID), new Acl(Perms.READ, Acls.ANYONE_ID_UNSAFE));
        ZkClient c = client(ALICE);
        for (int i = 0; i < 50; i++) {
            c.create("/n" + i, b(""), CreateMode.PERSISTENT, i % 2 == 0 ? alices : Acls.READ_ONLY);
        }
        c.setAcl("/n2", Acls.READ_ONLY, 0);
        assertThrows(ZkException.NoAuth.class, () -> c.setAcl("/n1", alices, 0)); // READ_ONLY: no ADMIN
        c.close();
        server.close();
        // replayed from the log
        server = ZkServer.start(ServerFixture.config(dir).snapshotInterval(10).build());
        ZkClient again = client(ALICE);
        assertEquals(alices, again.getAcl("/n0").acls());
        assertEquals(Acls.READ_ONLY, again.getAcl("/n2").acls());
        assertEquals(1, again.getAcl("/n2").stat().aversion());
        assertEquals(Acls.READ_ONLY, again.getAcl("/n3").acls());
        for (int i = 0; i < 30; i++) {
            again.create("/s" + i, b(""), CreateMode.PERSISTENT, alices); // crosses the snapshot interval
        }
        ServerFixture.await("a snapshot", Duration.ofSeconds(10), () -> {
            try (var files = java.nio.file.Files.list(dir.resolve("snapshots"))) {
                return files.anyMatch(p -> p.getFileName().toString().matches("snapshot\\.[0-9a-f]+"));
            } catch (IOException e) {
                return false;
            }
        });
        again.close();
        server.close();
        server = ZkServer.start(ServerFixture.config(dir).build());
        ZkClient third = client();
        assertEquals(alices, client(ALICE).getAcl("/s29").acls());
        assertEquals(1, third.getAcl("/n2").stat().aversion());
        assertEquals(Acls.READ_ONLY, third.getAcl("/n2").acls());
        assertThrows(ZkException.NoAuth.class, () -> third.setData("/n0", b("x"), -1));
        assertInstanceOf(ZkException.NoAuth.class, assertThrows(ZkException.class,
                () -> third.create("/n3/kid", b(""), CreateMode.PERSISTENT)));
    }
}
