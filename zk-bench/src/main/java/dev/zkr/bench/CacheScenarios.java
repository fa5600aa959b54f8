package dev.zkr.bench;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The cache scenarios, written once against {@link RecipeSession.Cache}: zkr's {@code TreeCache} (on the zkr server
 * and on ZooKeeper) and Curator's {@code CuratorCache}. The nodes are created beforehand with the server's stock
 * client (not measured).
 */
final class CacheScenarios {

    static final int CACHES = 8;
    static final int PROPAGATION_NODES = 1000;
    static final int MEMORY_PARENTS = 100;
    static final int MEMORY_CHILDREN = 1000;
    static final int DATA_BYTES = 100;

    private CacheScenarios() {
    }

    /**
     * Propagation: 1,000 nodes of 100 B under one root, 8 tree caches of it on 8 other sessions; one writer session
     * sets the nodes in turn, one write at a time. A sample is the time from the writer's {@code setData} call until
     * the last of the 8 caches' listeners has the new data (the write's number is in its first 8 bytes). Returns
     * p50 and p99.
     */
    static Measurement[] propagation(ServerFlavor flavor, RecipeSession.Factory factory, String cs, String root,
                                     Window window) throws Exception {
        String tree = root + "/cache";
        try (KvClient setup = flavor.connect(cs, ServerScenarios.CONNECT)) {
            setup.ensurePath(tree, new byte[0]);
            ServerScenarios.createAll(setup, PROPAGATION_NODES, 1000, i -> tree + "/n" + i, payload(-1));
        }
        Arrivals arrivals = new Arrivals(CACHES);
        Latencies latencies = new Latencies();
        RunnerCost[] cost = new RunnerCost[1];
        TailBursts tail = new TailBursts();
        return RecipeScenarios.withSessions(factory, cs, 1 + CACHES, sessions -> {
            List<RecipeSession.Cache> caches = new ArrayList<>();
            try {
                for (int c = 0; c < CACHES; c++) {
                    int cache = c;
                    caches.add(sessions.get(1 + c).treeCache(tree,
                            (path, data) -> arrivals.seen(cache, writeOf(data), System.nanoTime())));
                }
                for (RecipeSession.Cache cache : caches) {
                    if (cache.size() != 1 + PROPAGATION_NODES) {
                        throw new IllegalStateException("an initialised cache holds " + cache.size() + " nodes, "
                                + "the subtree has " + (1 + PROPAGATION_NODES));
                    }
                }
                RecipeSession writer = sessions.get(0);
                Workers.run("cache", 1, window, unused -> {
                    for (long seq = 0; !window.stopped(); seq++) {
                        String path = tree + "/n" + (seq % PROPAGATION_NODES);
                        arrivals.expect(seq);
                        boolean measured = window.measuring();
                        if (measured && cost[0] == null) {
                            cost[0] = RunnerCost.start(cs);
                        }
                        long t0 = System.nanoTime();
                        writer.setData(path, payload(seq));
                        long seenByAll = arrivals.await(seq, RecipeSession.TIMEOUT);
                        if (measured && window.measuring()) {
                            latencies.record(Math.max(0, seenByAll - t0));
                            tail.record(t0, Math.max(0, seenByAll - t0));
                        }
                    }
                });
                if (cost[0] != null) {
                    BenchMain.log("  cache     cost: %s", cost[0].end(latencies.count()));
                    BenchMain.log("  cache     tail: %s", tail.describe());
                }
            } finally {
                caches.forEach(RecipeSession.Cache::close);
            }
            if (window.failure() != null) {
                Measurement failed = Measurement.failed(ServerScenarios.describe(window.failure()));
                return new Measurement[] {failed, failed};
            }
            if (latencies.count() == 0) {
                Measurement none = Measurement.failed("no sample in the window");
                return new Measurement[] {none, none};
            }
            return new Measurement[] {Measurement.of(latencies.percentileMillis(50)),
                    Measurement.of(latencies.percentileMillis(99))};
        });
    }

    /**
     * Memory: 100 parents × 1,000 children of 100 B (10 MB of data) under {@link #treeOf} the turn's root. The runner JVM's heap after full GCs
     * ({@link ClientHeap}) is taken with the session open and no cache, then again once a tree cache of the subtree
     * is initialised and its listener has seen every child (so no queued start-up event counts); the difference in
     * MB is the figure. The cache must hold every node.
     */
    static Measurement memory(ServerFlavor flavor, RecipeSession.Factory factory, String cs, String root)
            throws Exception {
        String tree = treeOf(root);
        int leaves = MEMORY_PARENTS * MEMORY_CHILDREN;
        try (KvClient setup = flavor.connect(cs, ServerScenarios.CONNECT)) {
            setup.ensurePath(tree, new byte[0]);
            ServerScenarios.createAll(setup, MEMORY_PARENTS, 1000, i -> tree + "/p" + i, new byte[0]);
            ServerScenarios.createAll(setup, leaves, 1000,
                    i -> tree + "/p" + (i / MEMORY_CHILDREN) + "/c" + (i % MEMORY_CHILDREN), payload(-1));
            if (setup.childCount(tree + "/p" + (MEMORY_PARENTS - 1)) != MEMORY_CHILDREN) {
                throw new IllegalStateException("the server does not hold the tree it acknowledged");
            }
        }
        return RecipeScenarios.withSessions(factory, cs, 1, sessions -> {
            CountDownLatch everyLeaf = new CountDownLatch(leaves);
            long before = ClientHeap.usedAfterFullGc();
            RecipeSession.Cache cache = sessions.get(0).treeCache(tree, (path, data) -> {
                if (data.length == DATA_BYTES) {
                    everyLeaf.countDown();
                }
            });
            try {
                if (!everyLeaf.await(RecipeSession.CACHE_START.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException(everyLeaf.getCount() + " of " + leaves
                            + " nodes not reported within " + RecipeSession.CACHE_START);
                }
                long after = ClientHeap.usedAfterFullGc();
                int expected = 1 + MEMORY_PARENTS + leaves;
                if (cache.size() != expected) {
                    throw new IllegalStateException("the cache holds " + cache.size() + " nodes, the subtree has "
                            + expected);
                }
                return Measurement.of((after - before) / 1048576.0);
            } finally {
                cache.close();
            }
        });
    }

    /**
     * The memory tree's root for a turn: the same length for every column (a cache holds every path, and the turns'
     * roots differ in length: {@code /bench-zkr/r1}, {@code /bench-zookeeper/r1}), distinct per turn.
     */
    static String treeOf(String turnRoot) {
        return String.format(java.util.Locale.ROOT, "/cachemem-%08x", turnRoot.hashCode());
    }

    /** 100 bytes: the write's number in the first 8, then letters. */
    static byte[] payload(long seq) {
        byte[] data = ServerScenarios.payload();
        ByteBuffer.wrap(data).putLong(seq);
        return data;
    }

    /** The write number in data made by {@link #payload}, or -1. */
    static long writeOf(byte[] data) {
        return data == null || data.length != DATA_BYTES ? -1 : ByteBuffer.wrap(data).getLong();
    }
}
