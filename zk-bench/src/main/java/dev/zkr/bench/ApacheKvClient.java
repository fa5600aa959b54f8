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
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk;
        try {
            zk = new ZooKeeper(connectString, 30_000, event -> {
                if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                    connected.countDown();
                }
            });
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
        try {
            org.apache.zookeeper.data.Stat stat = zk.exists(path, false);
            if (stat == null) {
                throw new IllegalStateException("no node " + path);
            }
            return stat.getNumChildren();
        } catch (KeeperException e) {
            throw new IllegalStateException(e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public void setData(String path, byte[] data) {
        try {
            zk.setData(path, data, -1);
        } catch (KeeperException e) {
            throw new IllegalStateException(e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public byte[] getData(String path) {
        try {
            return zk.getData(path, false, null);
        } catch (KeeperException e) {
            throw new IllegalStateException(e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public void ensurePath(String path, byte[] data) {
        int slash = path.lastIndexOf('/');
        if (slash > 0) {
            ensurePath(path.substring(0, slash), new byte[0]);
        }
        try {
            zk.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        } catch (KeeperException.NodeExistsException exists) {
            // fine
        } catch (KeeperException e) {
            throw new IllegalStateException(e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public void close() {
        close(zk);
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
