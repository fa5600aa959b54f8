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

    /** One server as a {@link Side} uses it. */
    interface Backend {
        ZkClient newClient();

        /** Expires a session now, as its timeout would (its ephemerals go, their watches fire). */
        void expire(long sessionId);

        /** Stops the server and starts it again on the same port and data; sessions survive. */
        void restart();
    }

    Backend zkr() {
        return new Backend() {
            @Override
            public ZkClient newClient() {
                return zkrClient();
            }

            @Override
            public void expire(long sessionId) {
                zkr.expireSession(sessionId);
            }

            @Override
            public void restart() {
                zkr.stop(0);
                zkr.restart(0);
            }
        };
    }

    Backend zooKeeper() {
        return new Backend() {
            @Override
            public ZkClient newClient() {
                return zooKeeperClient();
            }

            @Override
            public void expire(long sessionId) {
                zooKeeper.expireSession(sessionId);
            }

            @Override
            public void restart() {
                zooKeeper.stop();
                zooKeeper.restart();
            }
        };
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
