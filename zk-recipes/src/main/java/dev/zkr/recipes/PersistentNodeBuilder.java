package dev.zkr.recipes;

import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import dev.zkr.recipes.node.NodeKeeper;
import dev.zkr.recipes.node.TtlToucher;

import java.util.Objects;
import java.util.concurrent.Executor;

/** Configures a {@link PersistentNode}; obtain one from {@link Recipes#persistentNode(String)}. */
public final class PersistentNodeBuilder {

    private final ZkClient client;
    private final String path;
    private final Executor executor;
    private CreateMode mode = CreateMode.EPHEMERAL;
    private boolean modeSet;
    private java.time.Duration ttl;
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
        this.modeSet = true;
        return this;
    }

    /**
     * A TTL node (Curator's {@code PersistentTtlNode}, same layout): the node outlives its keeper by {@code ttl}
     * instead of ending with its session. It is kept as a container whose child {@code touch}, a TTL node, is
     * renewed every half TTL; once the keeper stops (closed, or its process gone) the child expires after the TTL
     * and the server deletes the empty container. Needs a server with TTL nodes (zkr; ZooKeeper with
     * {@code zookeeper.extendedTypesEnabled=true}). Not with {@link #mode}.
     */
    public PersistentNodeBuilder ttl(java.time.Duration ttl) {
        Objects.requireNonNull(ttl, "ttl");
        CreateMode.PERSISTENT_WITH_TTL.checkTtl(ttl.toMillis());
        this.ttl = ttl;
        return this;
    }

    /** The node's initial data (default empty). */
    public PersistentNodeBuilder data(byte[] data) {
        this.data = Objects.requireNonNull(data, "data").clone();
        return this;
    }

    /** Starts keeping the node (created in the background: see {@link PersistentNode#await}). */
    public PersistentNode start() {
        if (ttl != null && modeSet) {
            throw new IllegalStateException("a TTL node is kept as a container with a TTL child: no mode with ttl");
        }
        NodeKeeper keeper = new NodeKeeper(client, path, ttl != null ? CreateMode.CONTAINER : mode, data, executor,
                ttl);
        keeper.start();
        TtlToucher toucher = null;
        if (ttl != null) {
            toucher = new TtlToucher(client, keeper, path, ttl, executor);
            toucher.start();
        }
        return new PersistentNode(keeper, toucher, path);
    }
}
