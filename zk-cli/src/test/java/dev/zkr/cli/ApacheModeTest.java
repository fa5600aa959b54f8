package dev.zkr.cli;

import dev.zkr.apache.ApacheZkClient;
import dev.zkr.apache.EmbeddedZooKeeper;
import dev.zkr.cli.Cli.Result;
import dev.zkr.client.ZkClient;
import dev.zkr.recipes.LeaderLatch;
import dev.zkr.recipes.LockLease;
import dev.zkr.recipes.Recipes;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static dev.zkr.cli.Cli.zkr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --apache}: the same commands and inspection against a real Apache ZooKeeper server (zk-apache's
 * EmbeddedZooKeeper, in this JVM), with the recipes run through zk-apache's client.
 */
class ApacheModeTest {

    @Test
    void nodeCommandsAndInspectionOnApacheZooKeeper() {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start();
             ZkClient holder = ApacheZkClient.connect(zk.connectString(), Duration.ofSeconds(10));
             ZkClient waiter = ApacheZkClient.connect(zk.connectString(), Duration.ofSeconds(10))) {
            String server = zk.connectString();
            Result created = zkr(server, "--apache", "create", "-p", "/ap/a node", "from zkr");
            assertEquals(0, created.exit(), created::toString);
            assertEquals(List.of("from zkr"), zkr(server, "--apache", "get", "/ap/a node").lines());
            assertEquals(List.of("a node"), zkr(server, "--apache", "ls", "/ap").lines());
            Result missing = zkr(server, "--apache", "get", "/ap/none");
            assertEquals(ExitCode.NODE, missing.exit(), missing::toString);
            assertEquals("zkr get: no node /ap/none\n", missing.err());

            LockLease lease = Recipes.using(holder).lock("/ap/lock").acquire();
            CompletableFuture<LockLease> queued =
                    CompletableFuture.supplyAsync(() -> Recipes.using(waiter).lock("/ap/lock").acquire());
            Cli.await("the waiter's lock node", Duration.ofSeconds(20), () -> holder.getChildren("/ap/lock").size() == 2);
            List<String> lines = zkr(server, "--apache", "locks", "/ap/lock").lines();
            assertEquals("lock /ap/lock (mutex): held by 1, 1 waiting", lines.get(0));
            assertTrue(lines.get(1).contains("session 0x" + Long.toHexString(holder.sessionId())
                    + "  fencing token " + lease.fencingToken()), lines.get(1));
            assertTrue(lines.get(2).contains("session 0x" + Long.toHexString(waiter.sessionId())), lines.get(2));

            try (LeaderLatch latch = Recipes.using(holder).leaderLatch("/ap/leader").id("zk-side").start()) {
                assertTrue(latch.await(Duration.ofSeconds(20)));
                assertEquals("election /ap/leader (fair): leader zk-side, fencing token " + latch.fencingToken()
                        + ", 1 participant", zkr(server, "--apache", "leader", "/ap/leader").lines().get(0));
            }
            lease.close();
            queued.join().close();

            // ACL commands through ApacheZkClient's ACL mapping: ZooKeeper decides, the CLI reports
            String bob = "digest:bob:secret";
            Result secret = zkr(server, "--apache", "--auth", bob, "create", "--acl", "auth::cdrwa", "/ap/secret", "hush");
            assertEquals(0, secret.exit(), secret::toString);
            Result refused = zkr(server, "--apache", "get", "/ap/secret");
            assertEquals(ExitCode.NOT_ALLOWED, refused.exit(), refused::toString);
            assertTrue(refused.err().startsWith("zkr get: not allowed on /ap/secret")
                    && refused.err().indexOf('\n') == refused.err().length() - 1, refused::toString);
            assertEquals(List.of("hush"), zkr(server, "--apache", "--auth", bob, "get", "/ap/secret").lines());
            List<String> acl = zkr(server, "--apache", "--auth", bob, "getacl", "/ap/secret").lines();
            assertEquals(1, acl.size(), acl::toString);
            assertTrue(acl.get(0).matches("digest:bob:[A-Za-z0-9+/=]{28}:cdrwa"), acl::toString);
            Result stale = zkr(server, "--apache", "--auth", bob, "setacl", "-v", "3", "/ap/secret", "world:anyone:r");
            assertEquals(ExitCode.NODE, stale.exit(), stale::toString);
            Result set = zkr(server, "--apache", "--auth", bob, "setacl", "-v", "0", "/ap/secret",
                    "ip:127.0.0.1:rw,world:anyone:r");
            assertEquals(0, set.exit(), set::toString);
            assertEquals(List.of("ip:127.0.0.1:rw", "world:anyone:r"),
                    zkr(server, "--apache", "getacl", "/ap/secret").lines());
            assertEquals(0, zkr(server, "--apache", "set", "/ap/secret", "from loopback").exit()); // ip grants WRITE
        }
    }
}
