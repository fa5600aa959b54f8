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

    /**
     * Asks again for the expiry of a session {@link #expireSession} was asked for, in case the server still has it
     * live: on an ensemble the expiry is a txn, lost with a leader deposed (cut off, killed) before it committed,
     * as any uncommitted write. A no-op where a server cannot lose it.
     */
    default void expireAgain(long sessionId) {
    }

    /**
     * The client's process dies: nothing more is sent by it, and the server ends its session through the expiry
     * path (ephemerals deleted, their watches fired, as the session timeout of a dead client would) rather than a
     * clean close; the client is then discarded. Callers that hand the client to recipes should stop those recipes
     * reaching the server first (the properties wrap clients for this). A session the server no longer knows
     * (already gone) is just discarded.
     */
    default void crash(ZkClient client) {
        try {
            expireSession(client);
        } catch (IllegalArgumentException | IllegalStateException e) {
            // the session is gone already (or the server is down): nothing left to expire
        }
        try {
            client.close();
        } catch (RuntimeException e) {
            // a dead client's close may fail; it is discarded anyway
        }
    }

    /** Stops the server and starts it again with the same data; sessions that reconnect in time survive. */
    void restartServer();

    /** Stops the server abruptly, keeping its data: clients lose their connection (SUSPENDED), sessions stay. */
    void stopServer();

    /** Starts a server stopped by {@link #stopServer()} again with the same data. */
    void startServer();

    /** Stops everything. */
    @Override
    void close();
}
