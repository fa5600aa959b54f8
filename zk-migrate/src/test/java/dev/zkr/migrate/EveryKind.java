package dev.zkr.migrate;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A ZooKeeper tree with every node mode ZooKeeper 3.5-3.9 has, written through a ZooKeeper client. */
final class EveryKind {
    static final List<ACL> DIGEST_ACL = Arrays.asList( // the client calls contains(null): not List.of
            new ACL(ZooDefs.Perms.ALL, new Id("digest", digest("alice:secret"))),
            new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE));

    private EveryKind() {
    }

    private static String digest(String idPassword) {
        try {
            return org.apache.zookeeper.server.auth.DigestAuthenticationProvider.generateDigest(idPassword);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * Every node mode, ACLs, null data, a second session {@code b} closed (its ephemerals gone), {@code txns} more
     * pipelined writes. {@code a} keeps ephemerals at /app/eph and /app/ephseq-*.
     */
    static void write(ZooKeeper a, ZooKeeper b, int txns) throws Exception {
        byte[] hello = "hello".getBytes(StandardCharsets.UTF_8);
        a.addAuthInfo("digest", "alice:secret".getBytes(StandardCharsets.UTF_8));
        a.create("/app", hello, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        a.create("/app/null", null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        a.create("/app/secret", hello, DIGEST_ACL, CreateMode.PERSISTENT);
        a.create("/app/acl", hello, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        a.setACL("/app/acl", DIGEST_ACL, -1);
        a.setACL("/app/acl", ZooDefs.Ids.READ_ACL_UNSAFE, -1);
        a.create("/app/box", null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.CONTAINER);
        a.create("/app/box/item", hello, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        a.create("/app/ttl", hello, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_WITH_TTL, null, 3_600_000);
        a.create("/app/ttlseq-", hello, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL, null,
                7_200_000);
        a.create("/app/eph", hello, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
        a.create("/app/ephseq-", hello, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL);
        List<String> seq = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            seq.add(a.create("/app/seq-", new byte[i], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_SEQUENTIAL));
        }
        a.delete(seq.get(2), -1); // the client's cversion counts creations and deletions
        b.create("/app/gone", hello, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
        b.create("/app/kept", hello, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        b.close();
        a.create("/load", null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        // pipelined (the client keeps a session's order): creates, sets and deletes of 50 nodes in turn
        int window = 1000;
        Semaphore inFlight = new Semaphore(window);
        AtomicInteger failures = new AtomicInteger();
        for (int i = 0; i < txns; i++) {
            String p = "/load/n" + (i % 50);
            assertTrue(inFlight.tryAcquire(60, TimeUnit.SECONDS));
            switch (i / 50 % 3) {
                case 0 -> a.create(p, ("v" + i).getBytes(StandardCharsets.UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE,
                        CreateMode.PERSISTENT, (rc, path, ctx, name) -> done(rc, inFlight, failures), null);
                case 1 -> a.setData(p, ("w" + i).getBytes(StandardCharsets.UTF_8), -1,
                        (rc, path, ctx, stat) -> done(rc, inFlight, failures), null);
                default -> a.delete(p, -1, (rc, path, ctx) -> done(rc, inFlight, failures), null);
            }
        }
        assertTrue(inFlight.tryAcquire(window, 120, TimeUnit.SECONDS), "every load txn answered");
        assertEquals(0, failures.get(), "load txns failed");
        a.setData("/app", "bye".getBytes(StandardCharsets.UTF_8), 0);
    }


    private static void done(int rc, Semaphore inFlight, AtomicInteger failures) {
        if (rc != 0) {
            failures.incrementAndGet();
        }
        inFlight.release();
    }
}
