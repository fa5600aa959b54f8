package dev.zkr.recipes;

import dev.zkr.client.ZkClient;

import java.util.concurrent.Executor;

/** Configures a {@link TreeCache}: how many bytes of node data it may hold, then {@link #start()}. */
public final class TreeCacheBuilder {

    private final ZkClient client;
    private final String path;
    private final Executor executor;
    private long maxDataBytes = Long.MAX_VALUE;

    TreeCacheBuilder(ZkClient client, String path, Executor executor) {
        this.client = client;
        this.path = path;
        this.executor = executor;
    }

    /**
     * The most bytes of node data the cache keeps in memory (default: no bound). Beyond it, Caffeine evicts data
     * (weighed by its length); the structure and every Stat are always kept, and evicted data is re-read on
     * {@link TreeCache#get}.
     */
    public TreeCacheBuilder maxDataBytes(long maxDataBytes) {
        if (maxDataBytes < 0) {
            throw new IllegalArgumentException("maxDataBytes must be >= 0: " + maxDataBytes);
        }
        this.maxDataBytes = maxDataBytes;
        return this;
    }

    /** A cache not started yet: add listeners before {@link TreeCache#start()} to see the first events too. */
    public TreeCache build() {
        return new TreeCache(client, path, maxDataBytes, executor);
    }

    /** Builds the cache, walks the subtree and returns once the copy is initialised. */
    public TreeCache start() {
        return build().start();
    }
}
