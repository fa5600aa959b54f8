package dev.zkr.recipes.discovery;

import dev.zkr.client.NodeData;
import dev.zkr.client.Stat;
import dev.zkr.client.ZkPaths;
import dev.zkr.recipes.CacheEvent;
import dev.zkr.recipes.TreeCache;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * A live view of one service's instances (Curator's {@code ServiceCache}), over the recipes' {@link TreeCache} of
 * {@code basePath/name}: it follows the server in zxid order, re-synchronises after a reconnect or a new session,
 * sees the service node deleted and made again, and is initialised (holding the instances registered before it
 * started) when {@link ServiceDiscovery#cache} returns. {@link #instances()} reads the tree cache's copy at the
 * moment of the call. Listeners get the new list, in order, on the recipes' executor, whenever it changes. A node
 * whose data is not an instance is left out (and logged once per version).
 */
public final class ServiceCache implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ServiceCache.class);

    /** One node's instance, parsed once per version (mzxid); null instance: not an instance. */
    private record Parsed(long mzxid, ServiceInstance instance) {
    }

    private final TreeCache tree;
    private final String name;
    private final String root;
    private final Consumer<ServiceCache> onClose;
    private final List<Consumer<List<ServiceInstance>>> listeners = new CopyOnWriteArrayList<>();
    private final Map<String, Parsed> parsed = new HashMap<>(); // guarded by this, by node name
    private List<ServiceInstance> notified = List.of();        // the tree cache's listener thread only
    private volatile boolean closed;

    ServiceCache(TreeCache tree, String name, Consumer<ServiceCache> onClose) {
        this.tree = tree;
        this.name = name;
        this.root = tree.path();
        this.onClose = onClose;
        tree.addListener(this::changed);
    }

    ServiceCache start() {
        tree.start();
        return this;
    }

    /** The service's name. */
    public String name() {
        return name;
    }

    /** The instances in the view now, in node-name order. */
    public synchronized List<ServiceInstance> instances() {
        if (closed) {
            return List.of();
        }
        List<String> names = tree.children(root);
        List<ServiceInstance> out = new ArrayList<>(names.size());
        Map<String, Parsed> seen = new HashMap<>();
        for (String node : names) {
            String path = ZkPaths.join(root, node);
            Optional<Stat> stat = tree.stat(path);
            if (stat.isEmpty()) {
                continue;
            }
            Parsed p = parsed.get(node);
            if (p == null || p.mzxid() != stat.get().mzxid()) {
                Optional<NodeData> data = tree.get(path);
                if (data.isEmpty()) {
                    continue;
                }
                p = new Parsed(data.get().stat().mzxid(), parse(path, data.get().data()));
            }
            seen.put(node, p);
            if (p.instance() != null) {
                out.add(p.instance());
            }
        }
        parsed.clear();
        parsed.putAll(seen);
        return List.copyOf(out);
    }

    private static ServiceInstance parse(String path, byte[] data) {
        try {
            return InstanceJson.read(data);
        } catch (IllegalArgumentException malformed) {
            LOG.warn("service cache: {} is not an instance: {}", path, malformed.getMessage());
            return null;
        }
    }

    /** The instance with this id in the view, if any. */
    public Optional<ServiceInstance> instance(String id) {
        return instances().stream().filter(i -> i.id().equals(id)).findFirst();
    }

    /**
     * Calls the listener with the new list of instances each time it changes (an instance registered, updated or
     * gone), in order, on the recipes' executor.
     */
    public void addListener(Consumer<List<ServiceInstance>> listener) {
        listeners.add(listener);
    }

    public void removeListener(Consumer<List<ServiceInstance>> listener) {
        listeners.remove(listener);
    }

    /** Tree cache events, in order on its listener thread: a change of an instance node (or a resync) is news. */
    private void changed(CacheEvent e) {
        boolean instanceNode = !e.path().equals(root) && ZkPaths.parent(e.path()).equals(root);
        if (closed || !(instanceNode || e.type() == CacheEvent.Type.INITIALIZED)) {
            return;
        }
        List<ServiceInstance> now = instances();
        if (now.equals(notified)) {
            return;
        }
        notified = now;
        for (Consumer<List<ServiceInstance>> l : listeners) {
            try {
                l.accept(now);
            } catch (RuntimeException x) {
                LOG.warn("service cache listener failed", x);
            }
        }
    }

    /** Stops watching (removes the tree cache's watch) and drops the view. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            parsed.clear();
        }
        listeners.clear();
        tree.close();
        onClose.accept(this);
    }

    @Override
    public String toString() {
        return "ServiceCache[" + root + "]";
    }
}
