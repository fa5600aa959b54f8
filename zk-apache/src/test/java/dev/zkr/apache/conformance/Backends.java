package dev.zkr.apache.conformance;

import dev.zkr.apache.ApacheZkClient;
import dev.zkr.apache.EmbeddedZooKeeper;
import dev.zkr.client.ZkClient;
import dev.zkr.testkit.TestEnsemble;

import java.time.Duration;

/**
 * The two servers compared: a zkr server from the test kit and an embedded Apache ZooKeeper, both on loopback with
 * fsync on, containers checked every 100 ms. Started once per test class; every try uses its own root.
 */
final class Backends implements AutoCloseable {

    private static final Duration SESSION = Duration.ofSeconds(10);

    private final TestEnsemble zkr;
    private final EmbeddedZooKeeper zooKeeper;

    private Backends(TestEnsemble zkr, EmbeddedZooKeeper zooKeeper) {
        this.zkr = zkr;
        this.zooKeeper = zooKeeper;
    }

    static Backends start() {
        TestEnsemble zkr = TestEnsemble.builder().servers(1)
                .configure(c -> c.containerCheckInterval(Duration.ofMillis(100)))
                .start();
        try {
            return new Backends(zkr, EmbeddedZooKeeper.start());
        } catch (RuntimeException e) {
            zkr.close();
            throw e;
        }
    }

    /** A new native client of the zkr server. */
    ZkClient zkrClient() {
        return ZkClient.builder().connectString(zkr.connectString()).sessionTimeout(SESSION)
                .connectTimeout(Duration.ofSeconds(10)).build();
    }

    /** A new {@link ApacheZkClient} of the ZooKeeper server. */
    ZkClient zooKeeperClient() {
        return ApacheZkClient.builder().connectString(zooKeeper.connectString()).sessionTimeout(SESSION)
                .connectTimeout(Duration.ofSeconds(10)).build();
    }

    /** Expires a session on the zkr server (a CloseSession txn, as a timeout would). */
    void expireOnZkr(long sessionId) {
        zkr.expireSession(sessionId);
    }

    /** Expires a session on ZooKeeper (a closeSession request, as a timeout would). */
    void expireOnZooKeeper(long sessionId) {
        zooKeeper.expireSession(sessionId);
    }

    @Override
    public void close() {
        try {
            zooKeeper.close();
        } finally {
            zkr.close();
        }
    }
}
