package dev.zkr.apache.curator;

import dev.zkr.testkit.TestEnsemble;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README's Curator snippet, as written there, on a 3-server zkr ensemble: an unchanged Curator application
 * (connect string, framework, lock, leader latch, cache) on zkr's client port.
 */
class CuratorOnZkrTest {

    @Test
    void theReadmeSnippetRunsOnZkr() throws Exception {
        try (TestEnsemble ensemble = TestEnsemble.builder().servers(3).start()) {
            String connectString = ensemble.connectString(); // "127.0.0.1:2181,127.0.0.1:2182,127.0.0.1:2183" in the README
            // --- README snippet ---
            CuratorFramework curator = CuratorFrameworkFactory.newClient(connectString,
                    new ExponentialBackoffRetry(100, 5));
            curator.start();
            curator.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL)
                    .forPath("/app/workers/w-1", "ready".getBytes(StandardCharsets.UTF_8));

            InterProcessMutex lock = new InterProcessMutex(curator, "/app/locks/job");
            if (lock.acquire(10, TimeUnit.SECONDS)) {
                try {
                    curator.setData().forPath("/app/workers/w-1", "busy".getBytes(StandardCharsets.UTF_8));
                } finally {
                    lock.release();
                }
            }

            try (LeaderLatch latch = new LeaderLatch(curator, "/app/leader", "w-1")) {
                latch.start();
                latch.await(10, TimeUnit.SECONDS);
                System.out.println("leader: " + latch.hasLeadership());
                // --- end of snippet ---
                assertTrue(latch.hasLeadership());
            }
            assertArrayEquals("busy".getBytes(StandardCharsets.UTF_8), curator.getData().forPath("/app/workers/w-1"));

            CountDownLatch seen = new CountDownLatch(1);
            try (CuratorCache cache = CuratorCache.build(curator, "/app")) {
                cache.listenable().addListener((type, oldData, data) -> {
                    if (data != null && data.getPath().equals("/app/workers/w-2")) {
                        seen.countDown();
                    }
                });
                cache.start();
                curator.create().forPath("/app/workers/w-2");
                assertTrue(seen.await(10, TimeUnit.SECONDS), "CuratorCache saw the new node");
            }
            assertEquals(2, curator.getChildren().forPath("/app/workers").size());
            curator.close();
        }
    }
}
