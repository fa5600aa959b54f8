package dev.zkr.apache.curator;

import dev.zkr.apache.ApacheZkClient;
import dev.zkr.apache.EmbeddedZooKeeper;
import dev.zkr.client.Stat;
import dev.zkr.client.ZkClient;
import dev.zkr.recipes.GroupMembership;
import dev.zkr.recipes.PersistentNode;
import dev.zkr.recipes.Recipes;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.nodes.GroupMember;
import org.apache.curator.framework.recipes.nodes.PersistentTtlNode;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static dev.zkr.apache.curator.Scenarios.b;
import static dev.zkr.apache.curator.Scenarios.holds;
import static dev.zkr.apache.curator.Scenarios.within20s;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Curator bugs that zkr's recipes are tested against, reproduced against Curator 5.7.1 itself on the same server
 * (Apache ZooKeeper 3.9.3), beside zkr's recipe in the same scenario: the bug shows on Curator and not on zkr.
 * Here the persistent TTL node and group membership; locks, queues, discovery and the leader selector are in
 * {@link MoreCuratorBugsReproducedTest}.
 */
class CuratorBugsReproducedTest {

    /**
     * CURATOR-545 (also CURATOR-636, Curator #1258): {@code PersistentTtlNode} creates its container, and its
     * {@code touch} child only half a TTL later; a process that dies in between leaves a container that never had a
     * child, which ZooKeeper never deletes. zkr's TTL persistent node makes both in one multi: after the same
     * death its node goes a TTL later.
     */
    @Test
    void curator545_aContainerLeftForEverByPersistentTtlNodeButNotByZkrs() throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start();
             ZkClient observer = ApacheZkClient.builder().connectString(zk.connectString()).build()) {
            // Curator: its process dies right after the first create (the touch child is 5 s away)
            CuratorFramework curator = CuratorFrameworkFactory.newClient(zk.connectString(), new RetryOneTime(1));
            curator.start();
            PersistentTtlNode node = new PersistentTtlNode(curator, "/curator/ttl", 10_000, new byte[] {1});
            node.start();
            assertTrue(node.waitForInitialCreate(10, TimeUnit.SECONDS));
            curator.close(); // the process is gone: no close of the node, no touch child ever
            for (int i = 0; i < 3; i++) {
                zk.checkContainersNow();
            }
            observer.sync("/curator/ttl");
            assertNotNull(observer.exists("/curator/ttl"), "Curator's container, childless, is there for ever");
            assertNull(observer.exists("/curator/ttl/touch"), "it never got its touch child");

            // zkr's recipe on the same server, the same death
            ZkClient keeper = ApacheZkClient.builder().connectString(zk.connectString()).build();
            PersistentNode zkrs = Recipes.using(keeper).persistentNode("/zkr/ttl").data(new byte[] {1})
                    .ttl(Duration.ofMillis(200)).start();
            assertTrue(zkrs.await(Duration.ofSeconds(10)));
            assertNotNull(observer.exists("/zkr/ttl/touch"), "made with its node");
            keeper.close(); // the process is gone
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (observer.exists("/zkr/ttl") != null) {
                assertTrue(System.nanoTime() < deadline, "zkr's node was not deleted after its TTL");
                zk.checkContainersNow();
                observer.sync("/zkr/ttl");
            }
        }
    }

    /**
     * CURATOR-373 through {@code GroupMember}: a second member started with an id in use (another session's
     * member) writes its data over the first's node, and its close deletes that node (the first's
     * {@code PersistentNode} then makes it again). zkr's second {@code join()} fails and leaves the node alone.
     */
    @Test
    void curator373_aSecondGroupMemberOfAnIdInUseOverwritesAndDeletesTheFirstsNodeButZkrsDoesNot() throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start();
             ZkClient observer = ApacheZkClient.builder().connectString(zk.connectString()).build()) {
            CuratorFramework c1 = CuratorFrameworkFactory.newClient(zk.connectString(), new RetryOneTime(1));
            CuratorFramework c2 = CuratorFrameworkFactory.newClient(zk.connectString(), new RetryOneTime(1));
            c1.start();
            c2.start();
            GroupMember first = new GroupMember(c1, "/curator/g", "a", b("first"));
            first.start();
            assertTrue(within20s(() -> holds(observer, "/curator/g/a", "first")));
            long firstNode = observer.exists("/curator/g/a").czxid();
            GroupMember second = new GroupMember(c2, "/curator/g", "a", b("second"));
            second.start(); // no error
            assertTrue(within20s(() -> holds(observer, "/curator/g/a", "second")),
                    "Curator: the second member wrote its data over the first's node");
            assertEquals(firstNode, observer.exists("/curator/g/a").czxid());
            second.close();
            assertTrue(within20s(() -> {
                Stat now = observer.exists("/curator/g/a");
                return now == null || now.czxid() != firstNode;
            }), "Curator: the second member's close deleted the first's node");
            first.close();
            c1.close();
            c2.close();

            // zkr's group on the same server, the same two members
            try (ZkClient k1 = ApacheZkClient.builder().connectString(zk.connectString()).build();
                 ZkClient k2 = ApacheZkClient.builder().connectString(zk.connectString()).build()) {
                GroupMembership zkrFirst = Recipes.using(k1).group("/zkr/g").memberId("a").data(b("first")).join();
                Stat before = observer.exists("/zkr/g/a");
                assertThrows(IllegalStateException.class,
                        () -> Recipes.using(k2).group("/zkr/g").memberId("a").data(b("second")).join());
                Stat after = observer.exists("/zkr/g/a");
                assertEquals(before.czxid(), after.czxid(), "zkr: the first's node is still the same");
                assertEquals(0, after.version(), "zkr: the first's node was never written");
                assertTrue(holds(observer, "/zkr/g/a", "first"));
                assertTrue(zkrFirst.isMember());
                zkrFirst.close();
            }
        }
    }

    /**
     * CURATOR-485: {@code GroupMember.setThisData} before the member's first create is processed throws
     * {@code IllegalStateException} ("initial create has not been processed"); here made certain by starting the
     * member while the server is down. zkr's {@code setData} is taken at any time until close: while the server is
     * down it is written once the session is back.
     */
    @Test
    void curator485_setThisDataBeforeTheFirstCreateThrowsButZkrsSetDataIsKept() throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start();
             ZkClient observer = ApacheZkClient.builder().connectString(zk.connectString())
                     .sessionTimeout(Duration.ofSeconds(30)).build();
             ZkClient keeper = ApacheZkClient.builder().connectString(zk.connectString())
                     .sessionTimeout(Duration.ofSeconds(30)).build()) {
            GroupMembership zkrs = Recipes.using(keeper).group("/zkr/g").memberId("a").data(b("v1")).join();
            zk.stop();
            CuratorFramework curator = CuratorFrameworkFactory.newClient(zk.connectString(), new RetryOneTime(1));
            curator.start();
            GroupMember member = new GroupMember(curator, "/curator/g", "a", b("v1"));
            try {
                member.start();
                assertThrows(IllegalStateException.class, () -> member.setThisData(b("v2")),
                        "Curator: setThisData before the first create is processed");
                zkrs.setData(b("v2")); // zkr: taken while the server is down
            } finally {
                zk.restart();
            }
            assertTrue(within20s(() -> holds(observer, "/zkr/g/a", "v2")), "zkr: v2 written once back");
            assertTrue(within20s(zkrs::isMember));
            member.close();
            curator.close();
            zkrs.close();
        }
    }
}
