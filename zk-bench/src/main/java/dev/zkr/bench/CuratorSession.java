package dev.zkr.bench;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.atomic.AtomicValue;
import org.apache.curator.framework.recipes.atomic.DistributedAtomicLong;
import org.apache.curator.framework.recipes.barriers.DistributedDoubleBarrier;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.framework.recipes.queue.DistributedPriorityQueue;
import org.apache.curator.framework.recipes.queue.QueueBuilder;
import org.apache.curator.framework.recipes.queue.QueueConsumer;
import org.apache.curator.framework.recipes.queue.QueueSerializer;
import org.apache.curator.framework.recipes.queue.SimpleDistributedQueue;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryNTimes;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/** {@link RecipeSession} on Apache Curator 5.7 recipes, one {@link CuratorFramework} per session. */
final class CuratorSession implements RecipeSession {

    private final CuratorFramework client;
    /** Queues made by this session, closed before the client. */
    private final java.util.List<java.io.Closeable> owned = new java.util.concurrent.CopyOnWriteArrayList<>();

    private CuratorSession(CuratorFramework client) {
        this.client = client;
    }

    static CuratorSession open(String connectString) throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs(30_000)
                .connectionTimeoutMs(15_000)
                .retryPolicy(new RetryNTimes(3, 100))
                .build();
        client.start();
        if (!client.blockUntilConnected(15, TimeUnit.SECONDS)) {
            client.close();
            throw new IllegalStateException("Curator not connected to " + connectString);
        }
        return new CuratorSession(client);
    }

    @Override
    public Lock mutex(String path) {
        InterProcessMutex mutex = new InterProcessMutex(client, path);
        return () -> acquire(mutex);
    }

    @Override
    public Lock readLock(String path) {
        InterProcessMutex read = new InterProcessReadWriteLock(client, path).readLock();
        return () -> acquire(read);
    }

    @Override
    public Lock writeLock(String path) {
        InterProcessMutex write = new InterProcessReadWriteLock(client, path).writeLock();
        return () -> acquire(write);
    }

    @Override
    public java.util.concurrent.CompletableFuture<Void> queueWaiter(String path, Runnable onHeld) {
        java.util.concurrent.CompletableFuture<Void> done = new java.util.concurrent.CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            InterProcessMutex mutex = new InterProcessMutex(client, path);
            try {
                if (!mutex.acquire(RecipeScenarios.ASYNC_LOCK_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException("lock not acquired within " + RecipeScenarios.ASYNC_LOCK_DEADLINE);
                }
                try {
                    onHeld.run();
                } finally {
                    mutex.release(); // on the thread that acquired, as Curator requires
                }
                done.complete(null);
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        }, "curator-lock-waiter");
        waiter.setDaemon(true);
        waiter.start();
        return done;
    }

    @Override
    public int childCount(String path) throws Exception {
        return client.getChildren().forPath(path).size();
    }

    private static Held acquire(InterProcessMutex mutex) throws Exception {
        if (!mutex.acquire(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("lock not acquired within " + TIMEOUT);
        }
        return mutex::release;
    }

    @Override
    public Lock semaphore(String path, int permits) {
        InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(client, path, permits);
        return () -> {
            Lease lease = semaphore.acquire(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            if (lease == null) {
                throw new IllegalStateException("permit not acquired within " + TIMEOUT);
            }
            return lease::close;
        };
    }

    /** A {@link CuratorCache} (Curator 5's cache: a persistent recursive watch), default options, data kept. */
    @Override
    public Cache treeCache(String path, BiConsumer<String, byte[]> onData) throws Exception {
        CuratorCache cache = CuratorCache.build(client, path);
        CountDownLatch initialized = new CountDownLatch(1);
        cache.listenable().addListener(new CuratorCacheListener() {
            @Override
            public void event(Type type, ChildData oldData, ChildData data) {
                if ((type == Type.NODE_CREATED || type == Type.NODE_CHANGED) && data != null) {
                    onData.accept(data.getPath(), data.getData());
                }
            }

            @Override
            public void initialized() {
                initialized.countDown();
            }
        });
        cache.start();
        if (!initialized.await(CACHE_START.toMillis(), TimeUnit.MILLISECONDS)) {
            cache.close();
            throw new IllegalStateException("CuratorCache not initialised within " + CACHE_START);
        }
        return new Cache() {
            @Override
            public int size() {
                return cache.size();
            }

            @Override
            public void close() {
                cache.close();
            }
        };
    }

    @Override
    public void setData(String path, byte[] data) throws Exception {
        client.setData().forPath(path, data);
    }

    @Override
    public Participant join(String path, String id, Runnable onElected) throws Exception {
        LeaderLatch latch = new LeaderLatch(client, path, id);
        latch.addListener(new LeaderLatchListener() {
            @Override
            public void isLeader() {
                onElected.run();
            }

            @Override
            public void notLeader() {
            }
        });
        latch.start();
        return latch::close;
    }

    @Override
    public Participant selector(String path, String id, java.util.function.Consumer<Term> onTerm) {
        LeaderSelector selector = new LeaderSelector(client, path, new LeaderSelectorListenerAdapter() {
            @Override
            public void takeLeadership(CuratorFramework c) throws Exception {
                java.util.concurrent.CompletableFuture<Void> ended = new java.util.concurrent.CompletableFuture<>();
                onTerm.accept(() -> ended.complete(null));
                ended.get(); // until ended (or interrupted: leadership lost)
            }
        });
        selector.setId(id);
        selector.autoRequeue();
        selector.start();
        return selector::close;
    }

    private final java.util.Map<String, org.apache.curator.x.discovery.ServiceDiscovery<Void>> discoveries =
            new java.util.concurrent.ConcurrentHashMap<>();

    private org.apache.curator.x.discovery.ServiceDiscovery<Void> discovery(String basePath) throws Exception {
        synchronized (discoveries) {
            org.apache.curator.x.discovery.ServiceDiscovery<Void> d = discoveries.get(basePath);
            if (d == null) {
                d = org.apache.curator.x.discovery.ServiceDiscoveryBuilder.builder(Void.class).client(client)
                        .basePath(basePath).build();
                d.start();
                discoveries.put(basePath, d);
            }
            return d;
        }
    }

    @Override
    public Registration register(String basePath, String name, String id) throws Exception {
        org.apache.curator.x.discovery.ServiceDiscovery<Void> d = discovery(basePath);
        org.apache.curator.x.discovery.ServiceInstance<Void> instance = org.apache.curator.x.discovery
                .ServiceInstance.<Void>builder().name(name).id(id).address("127.0.0.1").port(8080).build();
        d.registerService(instance);
        return () -> d.unregisterService(instance);
    }

    @Override
    public Cache serviceCache(String basePath, String name,
                              java.util.function.Consumer<java.util.Set<String>> onChange) throws Exception {
        org.apache.curator.x.discovery.ServiceCache<Void> cache = discovery(basePath).serviceCacheBuilder()
                .name(name).build();
        cache.addListener(new org.apache.curator.x.discovery.details.ServiceCacheListener() {
            @Override
            public void cacheChanged() {
                onChange.accept(cache.getInstances().stream()
                        .map(org.apache.curator.x.discovery.ServiceInstance::getId)
                        .collect(java.util.stream.Collectors.toSet()));
            }

            @Override
            public void stateChanged(CuratorFramework c, org.apache.curator.framework.state.ConnectionState s) {
            }
        });
        cache.start(); // returns once the cache is loaded
        return new Cache() {
            @Override
            public int size() {
                return cache.getInstances().size();
            }

            @Override
            public void close() {
                try {
                    cache.close();
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
        };
    }

    @Override
    public Barrier doubleBarrier(String path, int parties, String memberId) {
        DistributedDoubleBarrier barrier = new DistributedDoubleBarrier(client, path, parties);
        return new Barrier() {
            @Override
            public void enter() throws Exception {
                if (!barrier.enter(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException("barrier enter timed out");
                }
            }

            @Override
            public void leave() throws Exception {
                if (!barrier.leave(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException("barrier leave timed out");
                }
            }
        };
    }

    /** Optimistic increments retried without sleeping, so contention costs round trips, not back-off naps. */
    @Override
    public Counter counter(String path) {
        DistributedAtomicLong counter = new DistributedAtomicLong(client, path, new RetryNTimes(10_000, 0));
        return () -> {
            while (true) {
                AtomicValue<Long> v = counter.increment();
                if (v.succeeded()) {
                    return v.postValue();
                }
            }
        };
    }

    @Override
    public Queue queue(String path) {
        SimpleDistributedQueue queue = new SimpleDistributedQueue(client, path);
        return new Queue() {
            @Override
            public void offer(byte[] item) throws Exception {
                if (!queue.offer(item)) {
                    throw new IllegalStateException("offer failed");
                }
            }

            @Override
            public byte[] poll(Duration timeout) throws Exception {
                return queue.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
            }
        };
    }

    /**
     * Curator's {@code DistributedPriorityQueue} (no lock path: an item is deleted before it is handed over, at most
     * once, as zkr's simple queue). It pushes items to a consumer callback; here the callback hands them to
     * {@link Queue#poll} through a local queue.
     */
    @Override
    public Queue priorityQueue(String path) {
        java.util.concurrent.BlockingQueue<byte[]> taken = new java.util.concurrent.LinkedBlockingQueue<>();
        QueueConsumer<byte[]> consumer = new QueueConsumer<>() {
            @Override
            public void consumeMessage(byte[] message) {
                taken.add(message);
            }

            @Override
            public void stateChanged(CuratorFramework c, ConnectionState newState) {
            }
        };
        QueueSerializer<byte[]> bytes = new QueueSerializer<>() {
            @Override
            public byte[] serialize(byte[] item) {
                return item;
            }

            @Override
            public byte[] deserialize(byte[] bytes) {
                return bytes;
            }
        };
        java.util.concurrent.atomic.AtomicInteger offers = new java.util.concurrent.atomic.AtomicInteger();
        return new Queue() {
            private DistributedPriorityQueue<byte[]> queue; // made by the first call: a producer or a consumer

            private synchronized DistributedPriorityQueue<byte[]> queue(boolean consumes) throws Exception {
                if (queue == null) {
                    queue = QueueBuilder.builder(client, consumes ? consumer : null, bytes, path)
                            .buildPriorityQueue(0);
                    queue.start();
                    owned.add(queue);
                }
                return queue;
            }

            @Override
            public void offer(byte[] item) throws Exception {
                queue(false).put(item, offers.getAndIncrement() % 10);
            }

            @Override
            public byte[] poll(Duration timeout) throws Exception {
                queue(true);
                return taken.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
            }
        };
    }

    @Override
    public void close() {
        for (java.io.Closeable q : owned) {
            try {
                q.close();
            } catch (java.io.IOException | RuntimeException e) {
                // closing anyway
            }
        }
        synchronized (discoveries) {
            for (org.apache.curator.x.discovery.ServiceDiscovery<Void> d : discoveries.values()) {
                try {
                    d.close();
                } catch (Exception ignored) {
                    // closing the client below ends the session anyway
                }
            }
        }
        client.close();
    }
}
