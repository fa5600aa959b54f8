package dev.zkr.recipes;

import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import dev.zkr.recipes.node.NodeKeeper;

import java.util.Objects;
import java.util.concurrent.Executor;

/** Configures a {@link PersistentNode}; obtain one from {@link Recipes#persistentNode(String)}. */
public final class PersistentNodeBuilder {

    private final ZkClient client;
    private final String path;
    private final Executor executor;
    private CreateMode mode = CreateMode.EPHEMERAL;
    private byte[] data = new byte[0];

    PersistentNodeBuilder(ZkClient client, String path, Executor executor) {
        this.client = client;
        this.path = path;
        this.executor = executor;
    }

    /**
     * The node's mode: {@code EPHEMERAL} (default), {@code EPHEMERAL_SEQUENTIAL} (a protected name, found again
     * after a lost create), {@code PERSISTENT} or {@code PERSISTENT_SEQUENTIAL}. Not containers.
     */
    public PersistentNodeBuilder mode(CreateMode mode) {
        if (mode.isContainer()) {
            throw new IllegalArgumentException("not for a persistent node: " + mode);
        }
        this.mode = mode;
        return this;
    }

    /** The node's initial data (default empty). */
    public PersistentNodeBuilder data(byte[] data) {
        this.data = Objects.requireNonNull(data, "data").clone();
        return this;
    }

    /** Starts keeping the node (created in the background: see {@link PersistentNode#await}). */
    public PersistentNode start() {
        NodeKeeper keeper = new NodeKeeper(client, path, mode, data, executor);
        keeper.start();
        return new PersistentNode(keeper, path);
    }
}
