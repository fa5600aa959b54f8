package dev.zkr.recipes;

import dev.zkr.client.ZkClient;

import java.time.Duration;

/**
 * A real server and clients for the recipe suites. The zkr implementation uses the zkr test kit; zk-apache
 * subclasses the suites with an Apache ZooKeeper implementation.
 */
public interface RecipeBackend extends AutoCloseable {

    /** A new connected client with the given requested session timeout. */
    ZkClient newClient(Duration sessionTimeout);

    /** A new connected client with a 10 s session timeout. */
    default ZkClient newClient() {
        return newClient(Duration.ofSeconds(10));
    }

    /** Expires the client's current session on the server (its ephemerals go; the client sees LOST). */
    void expireSession(ZkClient client);

    /** Stops the server and starts it again with the same data; sessions that reconnect in time survive. */
    void restartServer();

    /** Stops everything. */
    @Override
    void close();
}
