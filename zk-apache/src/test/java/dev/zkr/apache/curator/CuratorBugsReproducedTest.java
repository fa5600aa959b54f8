package dev.zkr.apache.curator;

import dev.zkr.apache.ApacheZkClient;
import dev.zkr.apache.EmbeddedZooKeeper;
import dev.zkr.client.ZkClient;
import dev.zkr.recipes.PersistentNode;
import dev.zkr.recipes.Recipes;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.nodes.PersistentTtlNode;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Curator bugs that zkr's recipes are tested against, reproduced against Curator 5.7.1 itself on the same server
 * (Apache ZooKeeper 3.9.3), beside zkr's recipe in the same scenario: the bug shows on Curator and not on zkr.
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
}
