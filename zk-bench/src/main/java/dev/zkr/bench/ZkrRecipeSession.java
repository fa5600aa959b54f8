package dev.zkr.bench;

import dev.zkr.apache.ApacheZkClient;
import dev.zkr.client.ZkClient;
import dev.zkr.recipes.DistributedCounter;
import dev.zkr.recipes.DistributedLock;
import dev.zkr.recipes.DistributedPriorityQueue;
import dev.zkr.recipes.DistributedQueue;
import dev.zkr.recipes.DoubleBarrier;
import dev.zkr.recipes.LeaderLatch;
import dev.zkr.recipes.LeaderSelector;
import dev.zkr.recipes.LockLease;
import dev.zkr.recipes.CacheEvent;
import dev.zkr.recipes.Recipes;
import dev.zkr.recipes.Semaphore;
import dev.zkr.recipes.SemaphoreLease;
import dev.zkr.recipes.TreeCache;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/** {@link RecipeSession} on zkr recipes over one {@link ZkClient}: the native client or {@link ApacheZkClient}. */
final class ZkrRecipeSession implements RecipeSession {

    private final ZkClient client;
    private final Recipes recipes;
    private final List<AutoCloseable> owned = new ArrayList<>();

    private ZkrRecipeSession(ZkClient client) {
        this.client = client;
        this.recipes = Recipes.using(client);
    }

    /** zkr recipes on the native client (zkr server). */
    static ZkrRecipeSession openNative(String connectString) {
        return new ZkrRecipeSession(ZkClient.builder()
                .connectString(connectString)
                .sessionTimeout(Duration.ofSeconds(30))
                .connectTimeout(Duration.ofSeconds(15))
                .build());
    }

    /** zkr recipes on {@link ApacheZkClient} (ZooKeeper server). */
    static ZkrRecipeSession openOnZooKeeper(String connectString) {
        return new ZkrRecipeSession(ApacheZkClient.builder()
                .connectString(connectString)
                .sessionTimeout(Duration.ofSeconds(30))
                .connectTimeout(Duration.ofSeconds(15))
                .build());
    }

    @Override
    public Lock mutex(String path) {
        return lock(recipes.lock(path));
    }

    @Override
    public Lock readLock(String path) {
        return lock(recipes.readWriteLock(path).readLock());
    }

    @Override
    public Lock writeLock(String path) {
        return lock(recipes.readWriteLock(path).writeLock());
    }

    @Override
    public java.util.concurrent.CompletableFuture<Void> queueWaiter(String path, Runnable onHeld) {
        return recipes.lock(path).acquireAsync().thenAccept(lease -> {
            try {
                onHeld.run();
            } finally {
                lease.close();
            }
        });
    }

    @Override
    public int childCount(String path) {
        return client.getChildren(path).size();
    }

    private static Lock lock(DistributedLock lock) {
        return () -> {
            LockLease lease = lock.tryAcquire(TIMEOUT)
                    .orElseThrow(() -> new IllegalStateException("lock not acquired within " + TIMEOUT));
            return lease::close;
        };
    }

    @Override
    public Lock semaphore(String path, int permits) {
        Semaphore semaphore = recipes.semaphore(path).permits(permits).build();
        return () -> {
            SemaphoreLease lease = semaphore.tryAcquire(TIMEOUT)
                    .orElseThrow(() -> new IllegalStateException("permit not acquired within " + TIMEOUT));
            return lease::close;
        };
    }

    @Override
    public Cache treeCache(String path, BiConsumer<String, byte[]> onData) {
        TreeCache cache = recipes.treeCache(path).build();
        cache.addListener(event -> {
            if (event.type() == CacheEvent.Type.CREATED || event.type() == CacheEvent.Type.CHANGED) {
                event.data().ifPresent(d -> onData.accept(event.path(), d.data()));
            }
        });
        cache.start();
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
    public void setData(String path, byte[] data) {
        client.setData(path, data, -1);
    }

    @Override
    public Participant join(String path, String id, Runnable onElected) {
        LeaderLatch latch = recipes.leaderLatch(path).id(id).fair().onElected(l -> onElected.run()).start();
        return latch::close;
    }

    @Override
    public Participant selector(String path, String id, java.util.function.Consumer<Term> onTerm) {
        LeaderSelector selector = recipes.leaderSelector(path).id(id).takeLeadership(l -> {
            java.util.concurrent.CompletableFuture<Void> ended = new java.util.concurrent.CompletableFuture<>();
            onTerm.accept(() -> ended.complete(null));
            ended.get(); // until ended (or interrupted: leadership lost)
        }).start();
        return selector::close;
    }

    private final java.util.Map<String, dev.zkr.recipes.discovery.ServiceDiscovery> discoveries =
            new java.util.concurrent.ConcurrentHashMap<>();

    private dev.zkr.recipes.discovery.ServiceDiscovery discovery(String basePath) {
        return discoveries.computeIfAbsent(basePath, b -> {
            dev.zkr.recipes.discovery.ServiceDiscovery d = recipes.serviceDiscovery(b);
            synchronized (owned) {
                owned.add(d);
            }
            return d;
        });
    }

    @Override
    public Registration register(String basePath, String name, String id) {
        dev.zkr.recipes.discovery.ServiceRegistration r = discovery(basePath).register(
                dev.zkr.recipes.discovery.ServiceInstance.builder(name).id(id).address("127.0.0.1").port(8080)
                        .build());
        return r::close;
    }

    @Override
    public Cache serviceCache(String basePath, String name,
                              java.util.function.Consumer<java.util.Set<String>> onChange) {
        dev.zkr.recipes.discovery.ServiceCache cache = discovery(basePath).cache(name);
        cache.addListener(list -> onChange.accept(list.stream()
                .map(dev.zkr.recipes.discovery.ServiceInstance::id)
                .collect(java.util.stream.Collectors.toSet())));
        return new Cache() {
            @Override
            public int size() {
                return cache.instances().size();
            }

            @Override
            public void close() {
                cache.close();
            }
        };
    }

    @Override
    public Barrier doubleBarrier(String path, int parties, String memberId) {
        DoubleBarrier barrier = recipes.doubleBarrier(path).parties(parties).memberId(memberId).build();
        return new Barrier() {
            @Override
            public void enter() {
                if (!barrier.enter(TIMEOUT)) {
                    throw new IllegalStateException("barrier enter timed out");
                }
            }

            @Override
            public void leave() {
                if (!barrier.leave(TIMEOUT)) {
                    throw new IllegalStateException("barrier leave timed out");
                }
            }
        };
    }

    @Override
    public Counter counter(String path) {
        DistributedCounter counter = recipes.counter(path);
        return counter::incrementAndGet;
    }

    @Override
    public Queue queue(String path) {
        DistributedQueue<byte[]> queue = recipes.queue(path).build();
        synchronized (owned) {
            owned.add(queue);
        }
        return new Queue() {
            @Override
            public void offer(byte[] item) {
                queue.offer(item);
            }

            @Override
            public byte[] poll(Duration timeout) {
                return queue.poll(timeout).orElse(null);
            }
        };
    }

    @Override
    public Queue priorityQueue(String path) {
        DistributedPriorityQueue<byte[]> queue = recipes.queue(path).priority().build();
        synchronized (owned) {
            owned.add(queue);
        }
        java.util.concurrent.atomic.AtomicInteger offers = new java.util.concurrent.atomic.AtomicInteger();
        return new Queue() {
            @Override
            public void offer(byte[] item) {
                queue.offer(item, offers.getAndIncrement() % 10);
            }

            @Override
            public byte[] poll(Duration timeout) {
                return queue.poll(timeout).orElse(null);
            }
        };
    }

    @Override
    public void close() {
        synchronized (owned) {
            for (AutoCloseable c : owned) {
                try {
                    c.close();
                } catch (Exception ignored) {
                    // closing the client below ends the session anyway
                }
            }
        }
        client.close();
    }
}
