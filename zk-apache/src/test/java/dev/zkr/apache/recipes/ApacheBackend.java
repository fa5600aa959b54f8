package dev.zkr.apache.recipes;

import dev.zkr.apache.ApacheZkClient;
import dev.zkr.apache.EmbeddedZooKeeper;
import dev.zkr.client.ZkClient;
import dev.zkr.recipes.RecipeBackend;

import java.time.Duration;

/** The recipe suites' backend on an embedded Apache ZooKeeper server and {@link ApacheZkClient}s. */
public final class ApacheBackend implements RecipeBackend {

    private final EmbeddedZooKeeper server = EmbeddedZooKeeper.start();

    @Override
    public ZkClient newClient(Duration sessionTimeout) {
        return ApacheZkClient.connect(server.connectString(), sessionTimeout);
    }

    @Override
    public void expireSession(ZkClient client) {
        server.expireSession(client.sessionId());
    }

    @Override
    public void restartServer() {
        server.stop();
        server.restart();
    }

    @Override
    public void stopServer() {
        server.stop();
    }

    @Override
    public void startServer() {
        server.restart();
    }

    @Override
    public void close() {
        server.close();
    }
}
