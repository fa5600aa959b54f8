package dev.zkr.recipes;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

/**
 * Where the tree cache keeps node data. With no bound (the default) in the node itself ({@link TreeNode#data}):
 * nothing per node beyond the array. With a bound, in a Caffeine cache keyed by the node object and weighed by the
 * data's length, which evicts beyond the bound; a cache entry costs about 100 B per node, paid only when a bound is
 * asked for. Either way what is held for a node is the data of the version its Stat names: {@link TreeState} puts
 * the new data with every new Stat, and a node deleted and created again is a new node object (a new key).
 */
sealed interface HeldData permits HeldData.InNodes, HeldData.Bounded {

    /** In the nodes when {@code maxBytes} is {@code Long.MAX_VALUE} (no bound), else bounded by Caffeine. */
    static HeldData upTo(long maxBytes) {
        return maxBytes == Long.MAX_VALUE ? new InNodes() : new Bounded(maxBytes);
    }

    void put(TreeNode node, byte[] data);

    /** The data held for the node, or null if it was evicted. */
    byte[] get(TreeNode node);

    void remove(TreeNode node);

    /** Bytes of data held now. */
    long bytes();

    /** Forgets every node's data (the nodes themselves are being dropped). */
    void clear();

    /** No bound: each node holds its own data; only the total is counted here. */
    final class InNodes implements HeldData {

        private long bytes;

        @Override
        public void put(TreeNode node, byte[] data) {
            bytes += data.length - (node.data == null ? 0 : node.data.length);
            node.data = data;
        }

        @Override
        public byte[] get(TreeNode node) {
            return node.data;
        }

        @Override
        public void remove(TreeNode node) {
            if (node.data != null) {
                bytes -= node.data.length;
                node.data = null;
            }
        }

        @Override
        public long bytes() {
            return bytes;
        }

        @Override
        public void clear() {
            bytes = 0;
        }
    }

    /** A byte bound: a Caffeine cache with a weigher, evicting on the caller's thread. */
    final class Bounded implements HeldData {

        private final Cache<TreeNode, byte[]> cache;

        Bounded(long maxBytes) {
            cache = Caffeine.newBuilder()
                    .maximumWeight(maxBytes)
                    .<TreeNode, byte[]>weigher((node, data) -> data.length)
                    .executor(Runnable::run) // no background work, no pool
                    .build();
        }

        @Override
        public void put(TreeNode node, byte[] data) {
            cache.put(node, data);
        }

        @Override
        public byte[] get(TreeNode node) {
            return cache.getIfPresent(node);
        }

        @Override
        public void remove(TreeNode node) {
            cache.invalidate(node);
        }

        @Override
        public long bytes() {
            cache.cleanUp();
            return cache.policy().eviction().orElseThrow().weightedSize().orElse(0L);
        }

        @Override
        public void clear() {
            cache.invalidateAll();
        }
    }
}
