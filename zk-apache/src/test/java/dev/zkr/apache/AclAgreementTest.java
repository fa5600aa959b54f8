package dev.zkr.apache;

import dev.zkr.client.Acl;
import dev.zkr.client.Acls;
import dev.zkr.client.CreateMode;
import dev.zkr.client.NodeAcl;
import dev.zkr.client.NodeData;
import dev.zkr.client.Op;
import dev.zkr.client.OpResult;
import dev.zkr.client.Perms;
import dev.zkr.client.Stat;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The same ACL and authentication steps against a real ZooKeeper 3.9 server (through {@link ApacheZkClient}, which
 * maps ACLs and auth both ways) and against zkr (native client): every outcome must agree, so zkr checks as
 * ZooKeeper checks.
 */
@Timeout(60)
class AclAgreementTest {

    private static final byte[] ALICE = "alice:secret".getBytes(StandardCharsets.UTF_8);
    private static final Acl ALICE_ALL = new Acl(Perms.ALL, Acls.digest("alice", "secret"));

    @Test
    void zkrAndZooKeeperAgreeOnEveryAclStep() {
        List<String> zookeeper;
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start();
             ZkClient alice = ApacheZkClient.builder().connectString(zk.connectString()).authInfo("digest", ALICE)
                     .build();
             ZkClient anonymous = ApacheZkClient.connect(zk.connectString(), Duration.ofSeconds(10))) {
            zookeeper = steps(alice, anonymous);
        }
        List<String> zkr;
        try (TestEnsemble e = TestEnsemble.builder().servers(1).start()) {
            ZkClient alice = e.newClient(b -> b.authInfo("digest", ALICE));
            ZkClient anonymous = e.newClient(Duration.ofSeconds(10));
            zkr = steps(alice, anonymous);
        }
        for (int i = 0; i < Math.min(zookeeper.size(), zkr.size()); i++) {
            assertEquals(zookeeper.get(i), zkr.get(i), "step " + i);
        }
        assertEquals(zookeeper.size(), zkr.size());
        // the watch step: the unreadable node's creation was not delivered, the readable one's was
        assertEquals("first event NODE_CREATED /wopen, then []", zkr.get(zkr.size() - 1));
    }

    private static List<String> steps(ZkClient alice, ZkClient anonymous) {
        byte[] none = new byte[0];
        List<String> out = new ArrayList<>();
        out.add(run(() -> alice.create("/t", "v".getBytes(StandardCharsets.UTF_8), CreateMode.PERSISTENT,
                Acls.CREATOR_ALL)));
        out.add(run(() -> alice.getAcl("/t")));
        out.add(run(() -> anonymous.getData("/t")));
        out.add(run(() -> anonymous.setData("/t", none, -1)));
        out.add(run(() -> anonymous.create("/t/kid", none, CreateMode.PERSISTENT)));
        out.add(run(() -> anonymous.getAcl("/t")));
        out.add(run(() -> anonymous.getChildren("/t")));
        out.add(run(() -> anonymous.exists("/t")));
        out.add(run(() -> alice.setAcl("/t", List.of(ALICE_ALL, new Acl(Perms.READ, Acls.ANYONE_ID_UNSAFE)), 0)));
        out.add(run(() -> alice.setAcl("/t", List.of(ALICE_ALL), 0)));
        out.add(run(() -> anonymous.getAcl("/t")));
        out.add(run(() -> anonymous.getData("/t")));
        out.add(run(() -> anonymous.setAcl("/t", Acls.OPEN_UNSAFE, -1)));
        out.add(run(() -> anonymous.create("/mine", none, CreateMode.PERSISTENT, Acls.CREATOR_ALL)));
        out.add(run(() -> anonymous.create("/bad", none, CreateMode.PERSISTENT,
                List.of(Acl.of(Perms.ALL, "ip", "10.0.0.0/33")))));
        out.add(run(() -> anonymous.create("/bad", none, CreateMode.PERSISTENT, List.of(Acl.of(Perms.ALL, "foo",
                "bar")))));
        out.add(run(() -> anonymous.create("/bad", none, CreateMode.PERSISTENT, List.of(Acl.of(Perms.ALL, "digest",
                "nocolon")))));
        out.add(run(() -> anonymous.multi(List.of(Op.create("/m1", none, CreateMode.PERSISTENT),
                Op.setData("/t", none, -1), Op.create("/m2", none, CreateMode.PERSISTENT)))));
        out.add(run(() -> anonymous.exists("/m1")));
        out.add(run(() -> anonymous.multi(List.of(Op.check("/t", -1)))));
        out.add(run(() -> alice.create("/t/kid", none, CreateMode.PERSISTENT)));
        out.add(run(() -> {
            anonymous.delete("/t/kid", -1);
            return null;
        }));
        out.add(run(() -> {
            anonymous.delete("/t/missing", -1);
            return null;
        }));
        out.add(run(() -> {
            alice.delete("/t/missing", -1);
            return null;
        }));
        out.add(run(() -> anonymous.create("/ip", none, CreateMode.PERSISTENT,
                List.of(Acl.of(Perms.ALL, "ip", "127.0.0.1")))));
        out.add(run(() -> anonymous.getData("/ip")));
        out.add(run(() -> anonymous.create("/cidr", none, CreateMode.PERSISTENT,
                List.of(Acl.of(Perms.ALL, "ip", "127.0.0.0/8")))));
        out.add(run(() -> anonymous.getData("/cidr")));
        out.add(run(() -> anonymous.create("/far", none, CreateMode.PERSISTENT,
                List.of(Acl.of(Perms.ALL, "ip", "10.0.0.0/8")))));
        out.add(run(() -> anonymous.getData("/far")));
        out.add(run(() -> anonymous.setAcl("/missing", Acls.OPEN_UNSAFE, -1)));
        out.add(run(() -> anonymous.getAcl("/missing")));
        out.add(run(() -> {
            anonymous.addAuthInfo("digest", ALICE);
            return anonymous.setData("/t", none, -1);
        }));
        out.add(run(() -> anonymous.getAcl("/t")));
        out.add(run(() -> anonymous.create("/both", none, CreateMode.PERSISTENT, Acls.CREATOR_ALL)));
        out.add(run(() -> anonymous.getAcl("/both")));
        out.add(watchStep(alice, anonymous));
        return out;
    }

    /**
     * A session's watch on a node it may not read: the event is not delivered (events of one session come in
     * order, so the event of a readable node created afterwards is the barrier).
     */
    private static String watchStep(ZkClient alice, ZkClient watcher) {
        java.util.concurrent.BlockingQueue<String> events = new java.util.concurrent.LinkedBlockingQueue<>();
        try {
            watcher.exists("/wsecret", e -> events.add(e.type() + " " + e.path()));
            watcher.exists("/wopen", e -> events.add(e.type() + " " + e.path()));
            // bob's node: neither session may read it (the watcher authenticated as alice in an earlier step)
            alice.create("/wsecret", new byte[0], CreateMode.PERSISTENT,
                    List.of(new Acl(Perms.ALL, Acls.digest("bob", "pw"))));
            alice.create("/wopen", new byte[0], CreateMode.PERSISTENT);
            String first = events.poll(10, java.util.concurrent.TimeUnit.SECONDS);
            return "first event " + first + ", then " + events;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    private static String run(Supplier<Object> step) {
        try {
            return "OK " + describe(step.get());
        } catch (ZkException e) {
            return "ERR " + e.code() + (e.multiResults() == null ? "" : " " + describe(e.multiResults()));
        }
    }

    private static String describe(Object o) {
        if (o instanceof NodeAcl a) {
            return a.acls() + " aversion=" + a.stat().aversion();
        } else if (o instanceof Stat s) {
            return "version=" + s.version() + " aversion=" + s.aversion();
        } else if (o instanceof NodeData d) {
            return new String(d.data(), StandardCharsets.UTF_8);
        } else if (o instanceof List<?> l) {
            List<String> parts = new ArrayList<>();
            for (Object x : l) {
                parts.add(x instanceof OpResult.ErrorResult e ? e.code().toString() : x.getClass().getSimpleName());
            }
            return parts.toString();
        }
        return String.valueOf(o);
    }
}
