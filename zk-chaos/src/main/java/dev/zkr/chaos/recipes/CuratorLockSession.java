package dev.zkr.chaos.recipes;

import dev.zkr.chaos.workload.Worker;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/** A worker's Curator lock (a mutex, or a side of a read/write lock) over its own {@link CuratorClient}. */
final class CuratorLockSession implements LockLoop.Session {

    private final Worker w;
    private final CuratorClient client;
    private final Function<String, InterProcessMutex> mutexFor;

    CuratorLockSession(Worker w, Function<CuratorClient, Function<String, InterProcessMutex>> mutexes)
            throws InterruptedException {
        this.w = w;
        this.client = new CuratorClient(w);
        this.mutexFor = mutexes.apply(client);
    }

    @Override
    public LockLoop.Claim acquire(String hold, String role, Duration timeout) throws Exception {
        InterProcessMutex mutex = mutexFor.apply(role);
        long losses = client.losses();
        if (!mutex.acquire(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            return null;
        }
        long at = w.history().now();
        long token = client.token(mutex);
        return new LockLoop.Claim() {
            @Override
            public long acquiredAt() {
                return at;
            }

            @Override
            public long token() {
                return token;
            }

            @Override
            public boolean valid() {
                return client.valid(losses);
            }

            @Override
            public void release() throws Exception {
                mutex.release();
            }
        };
    }

    @Override
    public void close() {
        client.close();
    }
}
