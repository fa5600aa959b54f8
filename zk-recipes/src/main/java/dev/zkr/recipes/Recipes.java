package dev.zkr.recipes;

import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkPaths;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The entry point of the recipe library: {@code Recipes.using(client)} hands out builders and recipes that share
 * the client. Recipes never block the client's event thread: background work (an election, a membership view,
 * listener calls) runs on the recipes' executor, by default a cached pool of daemon threads.
 */
public final class Recipes {

    private static final AtomicInteger POOLS = new AtomicInteger();

    private final ZkClient client;
    private final Executor executor;

    private Recipes(ZkClient client, Executor executor) {
        this.client = client;
        this.executor = executor;
    }

    /** Recipes over the client, with a default executor for background work and listeners. */
    public static Recipes using(ZkClient client) {
        return new Recipes(Objects.requireNonNull(client, "client"), defaultExecutor());
    }

    /** Recipes over the client, running background work and listeners on the given executor. */
    public static Recipes using(ZkClient client, Executor executor) {
        return new Recipes(Objects.requireNonNull(client, "client"), Objects.requireNonNull(executor, "executor"));
    }

    private static ExecutorService defaultExecutor() {
        int pool = POOLS.incrementAndGet();
        AtomicInteger threads = new AtomicInteger();
        ThreadPoolExecutor e = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS,
                new SynchronousQueue<>(), r -> {
                    Thread t = new Thread(r, "zkr-recipes-" + pool + "-" + threads.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        return e;
    }

    /**
     * These recipes creating every node (and every missing parent) with this ACL, for applications whose nodes are
     * protected: for example {@code Acls.CREATOR_ALL} on a client that authenticated with
     * {@code authInfo("digest", ...)}. The client must hold CREATE/DELETE/READ/WRITE on the recipes' parents.
     */
    public Recipes withAcl(List<dev.zkr.client.Acl> acl) {
        if (acl == null || acl.isEmpty()) {
            throw new IllegalArgumentException("empty ACL");
        }
        return new Recipes(new AclClient(client, acl), executor);
    }

    /** The client the recipes use (with {@link #withAcl}: a view of it that creates nodes with that ACL). */
    public ZkClient client() {
        return client;
    }

    Executor executor() {
        return executor;
    }

    /** A leader election at {@code path}; configure it, then {@link LeaderLatchBuilder#start()}. */
    public LeaderLatchBuilder leaderLatch(String path) {
        return new LeaderLatchBuilder(client, ZkPaths.validate(path), executor);
    }

    /**
     * The take-leadership form of election at {@code path}: a callback runs while this participant leads; set it,
     * then {@link LeaderSelectorBuilder#start()}.
     */
    public LeaderSelectorBuilder leaderSelector(String path) {
        return new LeaderSelectorBuilder(client, ZkPaths.validate(path), executor);
    }

    /**
     * A node kept present with its data across connection loss, session expiry and deletion by others; set its
     * mode and data, then {@link PersistentNodeBuilder#start()}.
     */
    public PersistentNodeBuilder persistentNode(String path) {
        return new PersistentNodeBuilder(client, ZkPaths.validate(path), executor);
    }

    /** A fair, herd-free lock at {@code path}. */
    public DistributedLock lock(String path) {
        return SequentialLock.mutex(client, ZkPaths.validate(path), executor);
    }

    /**
     * A fair, herd-free lock at {@code path} whose holder owns it for a lease unless it renews it; set the lease,
     * then {@link LeasedLockBuilder#build()}.
     */
    public LeasedLockBuilder leasedLock(String path) {
        return new LeasedLockBuilder(client, ZkPaths.validate(path), executor);
    }

    /** A fair, herd-free counting semaphore at {@code path}; set the permits, then {@link SemaphoreBuilder#build()}. */
    public SemaphoreBuilder semaphore(String path) {
        return new SemaphoreBuilder(client, ZkPaths.validate(path), executor);
    }

    /** Several locks as one, taken in one global order (no deadlock), all or nothing. */
    public MultiLock multiLock(List<String> paths) {
        return new MultiLock(client, List.copyOf(paths), executor);
    }

    /** A value shared through the node at {@code path}; set its initial value, then {@link SharedValueBuilder#start()}. */
    public SharedValueBuilder sharedValue(String path) {
        return new SharedValueBuilder(client, ZkPaths.validate(path), executor);
    }

    /** A one-shot barrier on the node at {@code path}: set it, remove it, wait until it is gone. */
    public SimpleBarrier barrier(String path) {
        return new SimpleBarrier(client, ZkPaths.validate(path), executor);
    }

    /** A local, watch-maintained copy of the node at {@code path}; {@link NodeCache#start()} it. */
    public NodeCache nodeCache(String path) {
        return new NodeCache(client, ZkPaths.validate(path), executor);
    }

    /** A local, watch-maintained copy of the subtree at {@code path}; bound its data, then {@link TreeCacheBuilder#start()}. */
    public TreeCacheBuilder treeCache(String path) {
        return new TreeCacheBuilder(client, ZkPaths.validate(path), executor);
    }

    /** A shared read/write lock at {@code path}. */
    public ReadWriteLock readWriteLock(String path) {
        return new ReadWriteLock(client, ZkPaths.validate(path), executor);
    }

    /** A double barrier at {@code path}; set parties and member id, then {@link DoubleBarrierBuilder#build()}. */
    public DoubleBarrierBuilder doubleBarrier(String path) {
        return new DoubleBarrierBuilder(client, ZkPaths.validate(path), executor);
    }

    /** Group membership at {@code path}; set member id and data, then {@link GroupBuilder#join()}. */
    public GroupBuilder group(String path) {
        return new GroupBuilder(client, ZkPaths.validate(path), executor);
    }

    /** A linearizable counter stored in the node at {@code path}. */
    public DistributedCounter counter(String path) {
        return new DistributedCounter(client, ZkPaths.validate(path));
    }

    /**
     * Service discovery under {@code basePath}, in the layout and JSON of Curator's curator-x-discovery: register
     * instances, query them, watch a service, pick instances (see {@code dev.zkr.recipes.discovery}).
     */
    public dev.zkr.recipes.discovery.ServiceDiscovery serviceDiscovery(String basePath) {
        return dev.zkr.recipes.discovery.ServiceDiscovery.of(this, ZkPaths.validate(basePath));
    }

    /** A FIFO queue at {@code path} of byte[] items; add a serializer for typed items. */
    public QueueBuilder<byte[]> queue(String path) {
        return QueueBuilder.bytes(client, ZkPaths.validate(path), executor);
    }
}
