package dev.zkr.bench;

import dev.zkr.client.CreateMode;
import dev.zkr.client.Parents;
import dev.zkr.client.Stat;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;

import java.time.Duration;

/** {@link KvClient} on the native zkr client ({@link ZkClient#builder()}) and its async futures. */
final class ZkrKvClient implements KvClient {

    private final ZkClient client;

    private ZkrKvClient(ZkClient client) {
        this.client = client;
    }

    /** Opens a session and waits until it is established. */
    static ZkrKvClient connect(String connectString, Duration timeout) {
        return connect(connectString, timeout, null);
    }

    /** Opens a session (over TLS with these settings, if not null) and waits until it is established. */
    static ZkrKvClient connect(String connectString, Duration timeout, dev.zkr.client.TlsConfig tls) {
        dev.zkr.client.ZkClientBuilder b = ZkClient.builder()
                .connectString(connectString)
                .sessionTimeout(Duration.ofSeconds(30))
                .connectTimeout(timeout);
        if (tls != null) {
            b.tls(tls);
        }
        return new ZkrKvClient(b.build());
    }

    @Override
    public void createAsync(String path, byte[] data, boolean sequential, Callback callback) {
        client.createAsync(path, data, sequential ? CreateMode.PERSISTENT_SEQUENTIAL : CreateMode.PERSISTENT)
                .whenComplete((created, error) -> callback.done(error));
    }

    @Override
    public void getDataAsync(String path, int expectedLength, Callback callback) {
        client.getDataAsync(path, null).whenComplete((data, error) -> callback.done(error != null ? error
                : KvClient.checkLength(path, data.data(), expectedLength)));
    }

    @Override
    public int childCount(String path) {
        Stat stat = client.exists(path);
        if (stat == null) {
            throw new IllegalStateException("no node " + path);
        }
        return stat.numChildren();
    }

    @Override
    public void setDataAsync(String path, byte[] data, Callback callback) {
        client.setDataAsync(path, data, -1).whenComplete((stat, error) -> callback.done(error));
    }

    @Override
    public void setData(String path, byte[] data) {
        client.setData(path, data, -1);
    }

    @Override
    public byte[] getData(String path) {
        return client.getData(path).data();
    }

    @Override
    public void ensurePath(String path, byte[] data) {
        try {
            client.create(path, data, CreateMode.PERSISTENT, Parents.PERSISTENT);
        } catch (ZkException.NodeExists exists) {
            // fine
        }
    }

    @Override
    public void delete(String path) {
        client.delete(path, -1);
    }

    @Override
    public boolean watchDeletion(String path, Runnable onDeleted) {
        return client.exists(path, event -> {
            if (event.type() == WatchedEvent.Type.NODE_DELETED) {
                onDeleted.run();
            }
        }) != null;
    }

    @Override
    public void close() {
        client.close();
    }
}
