package dev.zkr.bench;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** {@link KvClient} on the stock {@code org.apache.zookeeper.ZooKeeper} client and its async callbacks. */
final class ApacheKvClient implements KvClient {

    private final ZooKeeper zk;

    private ApacheKvClient(ZooKeeper zk) {
        this.zk = zk;
    }

    /** Opens a session and waits until it is connected. */
    static ApacheKvClient connect(String connectString, Duration timeout) {
        return connect(connectString, timeout, null);
    }

    /**
     * Opens a session over TLS (ZooKeeper's Netty client socket, {@code zookeeper.client.secure=true}, trusting the
     * material's CA, hostname verification on as by default) and waits until it is connected.
     */
    static ApacheKvClient connectTls(String connectString, Duration timeout, BenchTls tls) {
        org.apache.zookeeper.client.ZKClientConfig conf = new org.apache.zookeeper.client.ZKClientConfig();
        conf.setProperty("zookeeper.clientCnxnSocket", "org.apache.zookeeper.ClientCnxnSocketNetty");
        conf.setProperty("zookeeper.client.secure", "true");
        conf.setProperty("zookeeper.ssl.trustStore.location", tls.trustStore().toString());
        conf.setProperty("zookeeper.ssl.trustStore.password", tls.password());
        conf.setProperty("zookeeper.ssl.trustStore.type", "PKCS12");
        return connect(connectString, timeout, conf);
    }

    /** Opens a plaintext session through ZooKeeper's Netty client socket (the baseline of the TLS rows). */
    static ApacheKvClient connectNetty(String connectString, Duration timeout) {
        org.apache.zookeeper.client.ZKClientConfig conf = new org.apache.zookeeper.client.ZKClientConfig();
        conf.setProperty("zookeeper.clientCnxnSocket", "org.apache.zookeeper.ClientCnxnSocketNetty");
        return connect(connectString, timeout, conf);
    }

    private static ApacheKvClient connect(String connectString, Duration timeout,
                                          org.apache.zookeeper.client.ZKClientConfig conf) {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk;
        try {
            Watcher watcher = event -> {
                if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                    connected.countDown();
                }
            };
            zk = conf == null ? new ZooKeeper(connectString, 30_000, watcher)
                    : new ZooKeeper(connectString, 30_000, watcher, conf);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            if (!connected.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                close(zk);
                throw new IllegalStateException("ZooKeeper client not connected to " + connectString + " within " + timeout);
            }
        } catch (InterruptedException e) {
            close(zk);
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        return new ApacheKvClient(zk);
    }

    @Override
    public void createAsync(String path, byte[] data, boolean sequential, Callback callback) {
        zk.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE,
                sequential ? CreateMode.PERSISTENT_SEQUENTIAL : CreateMode.PERSISTENT,
                (rc, p, ctx, name) -> callback.done(error(rc, p)), null);
    }

    @Override
    public void getDataAsync(String path, int expectedLength, Callback callback) {
        zk.getData(path, false, (rc, p, ctx, data, stat) -> callback.done(rc != 0 ? error(rc, p)
                : KvClient.checkLength(p, data, expectedLength)), null);
    }

    @Override
    public int childCount(String path) {
        org.apache.zookeeper.data.Stat stat = blocking(() -> zk.exists(path, false));
        if (stat == null) {
            throw new IllegalStateException("no node " + path);
        }
        return stat.getNumChildren();
    }

    @Override
    public void setDataAsync(String path, byte[] data, Callback callback) {
        zk.setData(path, data, -1, (rc, p, ctx, stat) -> callback.done(rc != 0 ? error(rc, p) : null), null);
    }

    @Override
    public void setData(String path, byte[] data) {
        blocking(() -> zk.setData(path, data, -1));
    }

    @Override
    public byte[] getData(String path) {
        return blocking(() -> zk.getData(path, false, null));
    }

    @Override
    public void ensurePath(String path, byte[] data) {
        int slash = path.lastIndexOf('/');
        if (slash > 0) {
            ensurePath(path.substring(0, slash), new byte[0]);
        }
        blocking(() -> {
            try {
                return zk.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            } catch (KeeperException.NodeExistsException exists) {
                return path; // fine
            }
        });
    }

    @Override
    public void delete(String path) {
        blocking(() -> {
            zk.delete(path, -1);
            return null;
        });
    }

    @Override
    public boolean watchDeletion(String path, Runnable onDeleted) {
        return blocking(() -> zk.exists(path, event -> {
            if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
                onDeleted.run();
            }
        })) != null;
    }

    @Override
    public void close() {
        close(zk);
    }

    /** A blocking ZooKeeper call. */
    private interface Call<T> {
        T run() throws KeeperException, InterruptedException;
    }

    /** Runs a blocking call; its failures become IllegalStateException (an interrupt is kept). */
    private static <T> T blocking(Call<T> call) {
        try {
            return call.run();
        } catch (KeeperException e) {
            throw new IllegalStateException(e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static Throwable error(int rc, String path) {
        return rc == 0 ? null : KeeperException.create(KeeperException.Code.get(rc), path);
    }

    private static void close(ZooKeeper zk) {
        try {
            zk.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
