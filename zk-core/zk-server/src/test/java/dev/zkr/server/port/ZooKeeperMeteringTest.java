package dev.zkr.server.port;

import dev.zkr.server.ServerFixture;
import dev.zkr.server.ZkServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A ZooKeeper-protocol connection is metered as a native one: the inbound budget holds its requests' bytes until
 * they are answered, the server's request metrics count its requests, the outstanding gauge returns to 0.
 */
@Timeout(120)
class ZooKeeperMeteringTest {

    private static final Duration PATIENCE = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    @Test
    void aZooKeeperClientsRequestsAreMeteredAndReleased() throws Exception {
        try (ZkServer server = ZkServer.start(ServerFixture.config(dir).adminPort(0).build())) {
            ZKClientConfig config = new ZKClientConfig();
            config.setProperty(ZKClientConfig.ENABLE_CLIENT_SASL_KEY, "false");
            ZooKeeper zk = new ZooKeeper(server.connectString(), 10_000, e -> { }, false, config);
            try {
                ServerFixture.await("connected", PATIENCE, () -> zk.getState() == ZooKeeper.States.CONNECTED);
                for (int i = 0; i < 50; i++) {
                    zk.create("/n" + i, new byte[100], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                    zk.getData("/n" + i, false, null);
                }
                InboundBudget inbound = ServerFixture.clientPort(server).initializer().inbound();
                // every answered request's bytes are released while the connection stays open
                ServerFixture.await("the requests' bytes released (held " + inbound.held() + ")", PATIENCE,
                        () -> inbound.held() == 0);
                ServerFixture.await("no request outstanding", PATIENCE,
                        () -> ServerFixture.clientPort(server).outstandingRequests() == 0);
                HttpResponse<String> metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create(server.adminUrl() + "metrics")).build(), HttpResponse.BodyHandlers.ofString());
                assertTrue(metrics.body().contains("zkr_request_duration_seconds_count{op=\"create\"} 50"),
                        metrics.body());
                assertTrue(metrics.body().contains("zkr_request_duration_seconds_count{op=\"getData\"} 50"),
                        metrics.body());
            } finally {
                zk.close(5_000);
            }
        }
    }
}
