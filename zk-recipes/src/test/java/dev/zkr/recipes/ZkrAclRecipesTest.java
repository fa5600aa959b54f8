package dev.zkr.recipes;

import dev.zkr.client.Acl;
import dev.zkr.client.Acls;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Perms;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Recipes on protected nodes: {@code Recipes.withAcl} creates every recipe node with the ACL, and they work. */
@Timeout(60)
class ZkrAclRecipesTest {

    private static final byte[] APP = "app:s3cret".getBytes(StandardCharsets.UTF_8);
    private static final List<Acl> APP_ONLY = List.of(new Acl(Perms.ALL, Acls.digest("app", "s3cret")));

    @Test
    void recipesWorkUnderAProtectedParentAndProtectTheirNodes() {
        try (TestEnsemble e = TestEnsemble.builder().servers(1).start()) {
            ZkClient app = e.newClient(b -> b.authInfo("digest", APP));
            ZkClient other = e.newClient(b -> b.authInfo("digest", APP));
            ZkClient stranger = e.newClient(Duration.ofSeconds(5));
            app.create("/app", new byte[0], CreateMode.PERSISTENT, Acls.CREATOR_ALL);
            Recipes recipes = Recipes.using(app).withAcl(Acls.CREATOR_ALL);

            try (LockLease lease = recipes.lock("/app/locks/a").acquire()) {
                assertTrue(lease.isValid());
                assertEquals(APP_ONLY, app.getAcl(lease.nodePath()).acls());
                assertEquals(APP_ONLY, app.getAcl("/app/locks").acls()); // parents created by the recipe too
                // while held (after the release the lock's container may be cleaned up at any moment)
                assertThrows(ZkException.NoAuth.class, () -> stranger.getChildren("/app/locks/a"));
            }

            DistributedCounter counter = recipes.counter("/app/counter");
            assertEquals(1, counter.incrementAndGet());
            assertEquals(2, Recipes.using(other).counter("/app/counter").incrementAndGet());
            assertEquals(APP_ONLY, app.getAcl("/app/counter").acls());
            assertThrows(ZkException.NoAuth.class, () -> Recipes.using(stranger).counter("/app/counter").get());

            DistributedQueue<byte[]> queue = recipes.queue("/app/queue").build();
            queue.offer(new byte[] {42});
            assertArrayEquals(new byte[] {42}, queue.poll(Duration.ofSeconds(10)).orElseThrow());
            queue.close();

            LeaderLatch latch = recipes.leaderLatch("/app/leader").id("a").start();
            assertTrue(latch.await(Duration.ofSeconds(10)));
            assertEquals(APP_ONLY, app.getAcl("/app/leader").acls());
            latch.close();

            // a multi create inside a recipe-built client keeps the ACL; an explicit ACL is kept as given
            recipes.client().multi(List.of(dev.zkr.client.Op.create("/app/m", new byte[0], CreateMode.PERSISTENT),
                    dev.zkr.client.Op.create("/app/open", new byte[0], CreateMode.PERSISTENT, Acls.READ_ONLY)));
            assertEquals(APP_ONLY, app.getAcl("/app/m").acls());
            assertEquals(Acls.READ_ONLY, app.getAcl("/app/open").acls());
        }
    }

    @Test
    void aRecipeOfAnUnauthorisedClientFailsWithNoAuth() {
        try (TestEnsemble e = TestEnsemble.builder().servers(1).start()) {
            ZkClient app = e.newClient(b -> b.authInfo("digest", APP));
            app.create("/app", new byte[0], CreateMode.PERSISTENT, Acls.CREATOR_ALL);
            ZkClient stranger = e.newClient(Duration.ofSeconds(5));
            assertThrows(ZkException.NoAuth.class, () -> Recipes.using(stranger).lock("/app/lock").acquire());
            assertThrows(ZkException.InvalidAcl.class,
                    () -> Recipes.using(stranger).withAcl(Acls.CREATOR_ALL).counter("/c").incrementAndGet());
        }
    }
}
