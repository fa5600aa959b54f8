package dev.zkr.bench;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.atomic.AtomicValue;
import org.apache.curator.framework.recipes.atomic.DistributedAtomicLong;
import org.apache.curator.framework.recipes.barriers.DistributedDoubleBarrier;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.queue.SimpleDistributedQueue;
import org.apache.curator.retry.RetryNTimes;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** {@link RecipeSession} on Apache Curator 5.7 recipes, one {@link CuratorFramework} per session. */
final class CuratorSession implements RecipeSession {

    private final CuratorFramework client;

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

    private static Held acquire(InterProcessMutex mutex) throws Exception {
        if (!mutex.acquire(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("lock not acquired within " + TIMEOUT);
        }
        return mutex::release;
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

    @Override
    public void close() {
        client.close();
    }
}
