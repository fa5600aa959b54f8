package dev.zkr.chaos.recipes;

import dev.zkr.chaos.Clients;
import dev.zkr.chaos.history.History;
import dev.zkr.chaos.workload.Worker;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.data.Stat;

import java.lang.reflect.Method;
import java.util.concurrent.TimeUnit;

/**
 * A worker's own {@link CuratorFramework} (built from {@link Worker#connectString()}, session timeout
 * {@link Clients#SESSION_TIMEOUT}, {@link ExponentialBackoffRetry}), whose connection states go to the history, and
 * what Curator's recipes do not offer: whether a holder should believe it holds, and a fencing token.
 *
 * <p>Validity follows Curator's documented rule: after {@code SUSPENDED} a holder must assume it lost the lock
 * until {@code RECONNECTED}; after {@code LOST} it has lost it. Token: the czxid of the lock node the mutex created,
 * found through {@code InterProcessMutex.getLockPath()} (protected; called by reflection) and one {@code exists}.
 */
final class CuratorClient implements AutoCloseable {

    private static final Method LOCK_PATH;

    static {
        try {
            LOCK_PATH = InterProcessMutex.class.getDeclaredMethod("getLockPath");
            LOCK_PATH.setAccessible(true);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final CuratorFramework client;
    private volatile ConnectionState state = ConnectionState.CONNECTED;
    private volatile long losses;

    CuratorClient(Worker w) throws InterruptedException {
        History h = w.history();
        client = CuratorFrameworkFactory.builder().connectString(w.connectString())
                .sessionTimeoutMs((int) Clients.SESSION_TIMEOUT.toMillis())
                .connectionTimeoutMs(15_000)
                .retryPolicy(new ExponentialBackoffRetry(100, 5))
                .build();
        client.getConnectionStateListenable().addListener((c, s) -> {
            if (s == ConnectionState.LOST) {
                losses++;
            }
            state = s;
            Events.connState(h, w.index(), s.name());
        });
        client.start();
        if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
            client.close();
            throw new IllegalStateException("Curator not connected to " + w.connectString());
        }
    }

    CuratorFramework framework() {
        return client;
    }

    /** How many times the session was reported LOST so far. */
    long losses() {
        return losses;
    }

    /** Connected, and no LOST since {@code lossesAtAcquire} was read. */
    boolean valid(long lossesAtAcquire) {
        ConnectionState s = state;
        return (s == ConnectionState.CONNECTED || s == ConnectionState.RECONNECTED) && losses == lossesAtAcquire;
    }

    /** The czxid of the node the mutex holds for the calling thread, -1 if it cannot be read. */
    long token(InterProcessMutex mutex) {
        try {
            String path = (String) LOCK_PATH.invoke(mutex);
            return path == null ? -1 : czxid(path);
        } catch (ReflectiveOperationException e) {
            return -1;
        }
    }

    /** The node's czxid, -1 if it is gone or cannot be read. */
    long czxid(String path) {
        if (path == null) {
            return -1;
        }
        try {
            Stat st = client.checkExists().forPath(path);
            return st == null ? -1 : st.getCzxid();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        } catch (Exception e) {
            return -1;
        }
    }

    @Override
    public void close() {
        client.close();
    }
}
