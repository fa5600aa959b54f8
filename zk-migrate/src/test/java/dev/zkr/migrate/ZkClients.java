package dev.zkr.migrate;

import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** ZooKeeper (3.9.3) clients a test opens, each awaited until connected, all closed by {@link #close()}. */
final class ZkClients implements AutoCloseable {
    static final int SESSION_MS = 30_000;
    private final List<ZooKeeper> open = new ArrayList<>();

    ZooKeeper connect(String connectString) throws Exception {
        return connect(connectString, SESSION_MS);
    }

    ZooKeeper connect(String connectString, int sessionMs) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(connectString, sessionMs, e -> {
            if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        open.add(zk);
        assertTrue(connected.await(30, TimeUnit.SECONDS), "connected to " + connectString);
        return zk;
    }

    /** A client resuming session {@code sessionId}; authenticated as alice (zkr shows digests to their owner only). */
    ZooKeeper resume(String connectString, long sessionId, byte[] password) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(connectString, SESSION_MS, e -> {
            if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        }, sessionId, password);
        open.add(zk);
        assertTrue(connected.await(30, TimeUnit.SECONDS), "resumed session 0x" + Long.toHexString(sessionId));
        zk.addAuthInfo("digest", "alice:secret".getBytes(StandardCharsets.UTF_8));
        return zk;
    }

    /** Remembers a client the test made itself, to close it. */
    ZooKeeper keep(ZooKeeper zk) {
        open.add(zk);
        return zk;
    }

    @Override
    public void close() throws InterruptedException {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close(1000);
        }
        open.clear();
    }
}
