package dev.zkr.apache.curator;

import dev.zkr.apache.ApacheZkClient;
import dev.zkr.apache.EmbeddedZooKeeper;
import dev.zkr.client.ZkClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.time.Duration;

/** Discovery interop on Apache ZooKeeper: zkr's recipes through {@link ApacheZkClient}, Curator beside them. */
class DiscoveryInteropOnZooKeeperTest extends DiscoveryInteropSuite {

    private EmbeddedZooKeeper server;

    @BeforeAll
    void start() {
        server = EmbeddedZooKeeper.start();
    }

    @AfterAll
    void stop() {
        server.close();
    }

    @Override
    protected String connectString() {
        return server.connectString();
    }

    @Override
    protected ZkClient zkrClient() {
        return ApacheZkClient.connect(server.connectString(), Duration.ofSeconds(10));
    }
}
