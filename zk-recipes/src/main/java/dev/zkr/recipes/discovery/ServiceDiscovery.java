package dev.zkr.recipes.discovery;

import dev.zkr.client.ClientSupport;
import dev.zkr.client.CreateMode;
import dev.zkr.client.NodeData;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.client.ZkPaths;
import dev.zkr.recipes.Recipes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * Service discovery under a base path, in the node layout and JSON of Curator's {@code curator-x-discovery}
 * ({@code basePath/<service name>/<instance id>}), so that zkr and Curator find each other's instances. Register
 * instances ({@link #register}), query names and instances, and watch one service through a {@link ServiceCache} or
 * pick instances with a {@link ServiceProvider}. Obtain one from {@link Recipes#serviceDiscovery(String)}.
 * {@link #close()} unregisters this discovery's instances and closes its caches and providers.
 */
public final class ServiceDiscovery implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ServiceDiscovery.class);

    private final Recipes recipes;
    private final ZkClient client;
    private final String basePath;
    private final Map<String, ServiceRegistration> registrations = new ConcurrentHashMap<>(); // by instance id
    private final Set<AutoCloseable> views = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    private ServiceDiscovery(Recipes recipes, String basePath) {
        this.recipes = recipes;
        this.client = recipes.client();
        this.basePath = basePath;
    }

    /** The same as {@code recipes.serviceDiscovery(basePath)}. */
    public static ServiceDiscovery of(Recipes recipes, String basePath) {
        return new ServiceDiscovery(Objects.requireNonNull(recipes, "recipes"), ZkPaths.validate(basePath));
    }

    public String basePath() {
        return basePath;
    }

    /**
     * Registers the instance: its node ({@code basePath/name/id}; ephemeral for DYNAMIC, ephemeral-sequential for
     * DYNAMIC_SEQUENTIAL, persistent for STATIC and PERMANENT) is made in the background and kept present until
     * unregistered ({@link ServiceRegistration#await} waits for it). Registering an id this discovery holds again
     * updates that registration (never a second node); with another name or service type it is an
     * {@link IllegalArgumentException}. An ephemeral node of that path owned by another session is left alone: ours
     * is made when it goes.
     */
    public synchronized ServiceRegistration register(ServiceInstance instance) {
        Objects.requireNonNull(instance, "instance");
        if (closed) {
            throw new IllegalStateException("service discovery closed");
        }
        ServiceRegistration held = registrations.get(instance.id());
        if (held != null) {
            held.update(instance); // checks name and type
            return held;
        }
        CreateMode mode = switch (instance.serviceType()) {
            case DYNAMIC -> CreateMode.EPHEMERAL;
            case DYNAMIC_SEQUENTIAL -> CreateMode.EPHEMERAL_SEQUENTIAL;
            case STATIC, PERMANENT -> CreateMode.PERSISTENT;
        };
        ServiceRegistration r = new ServiceRegistration(instance,
                recipes.persistentNode(instancePath(instance.name(), instance.id())).mode(mode)
                        .data(InstanceJson.write(instance)).start(),
                gone -> registrations.remove(gone.instance().id(), gone));
        registrations.put(instance.id(), r);
        return r;
    }

    /**
     * Updates a registered instance (see {@link ServiceRegistration#update}); {@link IllegalArgumentException} if
     * this discovery has not registered its id.
     */
    public void update(ServiceInstance instance) {
        registration(instance.id()).orElseThrow(() -> new IllegalArgumentException("not registered here: "
                + instance)).update(instance);
    }

    /** Unregisters the instance with this id, if this discovery registered it; true if it did. */
    public boolean unregister(String id) {
        ServiceRegistration r = registrations.get(id);
        if (r == null) {
            return false;
        }
        r.close();
        return true;
    }

    /** This discovery's registration of the instance with this id. */
    public Optional<ServiceRegistration> registration(String id) {
        return Optional.ofNullable(registrations.get(id));
    }

    /** The names of the services under the base path, sorted (one round trip). */
    public List<String> names() {
        try {
            List<String> names = new ArrayList<>(client.getChildren(basePath));
            names.sort(null);
            return names;
        } catch (ZkException.NoNode e) {
            return List.of();
        }
    }

    /**
     * The instances of a service as the server has them now, in node-name order (a listing and one pipelined read
     * per instance). A node whose data is not an instance is left out (and logged).
     */
    public List<ServiceInstance> instances(String name) {
        String service = servicePath(name);
        List<String> ids;
        try {
            ids = new ArrayList<>(client.getChildren(service));
        } catch (ZkException.NoNode e) {
            return List.of();
        }
        ids.sort(null);
        List<CompletableFuture<NodeData>> reads = new ArrayList<>();
        for (String id : ids) {
            reads.add(client.getDataAsync(ZkPaths.join(service, id), null));
        }
        List<ServiceInstance> out = new ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
            NodeData d;
            try {
                d = ClientSupport.await(reads.get(i));
            } catch (ZkException.NoNode gone) {
                continue;
            }
            try {
                out.add(InstanceJson.read(d.data()));
            } catch (IllegalArgumentException malformed) {
                LOG.warn("service discovery: {} is not an instance: {}", ZkPaths.join(service, ids.get(i)),
                        malformed.getMessage());
            }
        }
        return out;
    }

    /**
     * The instance at {@code basePath/name/id}, if there; {@link IllegalArgumentException} if its data is not an
     * instance.
     */
    public Optional<ServiceInstance> instance(String name, String id) {
        String path = instancePath(name, id);
        NodeData d;
        try {
            d = client.getData(path);
        } catch (ZkException.NoNode e) {
            return Optional.empty();
        }
        try {
            return Optional.of(InstanceJson.read(d.data()));
        } catch (IllegalArgumentException malformed) {
            throw new IllegalArgumentException(path + ": " + malformed.getMessage(), malformed);
        }
    }

    /** A live, watch-maintained view of one service's instances, started (initialised when this returns). */
    public ServiceCache cache(String name) {
        ServiceCache cache = new ServiceCache(recipes.treeCache(servicePath(name)).build(), name, views::remove);
        views.add(cache);
        try {
            return cache.start();
        } catch (RuntimeException e) {
            cache.close();
            throw e;
        }
    }

    /** A provider of one service's instances; choose its strategy, then {@link ServiceProviderBuilder#start()}. */
    public ServiceProviderBuilder provider(String name) {
        servicePath(name);
        return new ServiceProviderBuilder(this, name);
    }

    ServiceProvider startProvider(String name, ProviderStrategy strategy, Predicate<ServiceInstance> filter) {
        ServiceProvider p = new ServiceProvider(cache(name), strategy, filter, views::remove);
        views.add(p);
        return p;
    }

    private String servicePath(String name) {
        return ZkPaths.join(basePath, ServiceInstance.Builder.nodeName(name, "service name"));
    }

    private String instancePath(String name, String id) {
        return ZkPaths.join(servicePath(name), ServiceInstance.Builder.nodeName(id, "instance id"));
    }

    /** Unregisters this discovery's instances (deleting their nodes) and closes its caches and providers. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        for (AutoCloseable v : List.copyOf(views)) {
            try {
                v.close();
            } catch (Exception e) {
                LOG.debug("closing {}: {}", v, e.toString());
            }
        }
        for (ServiceRegistration r : List.copyOf(registrations.values())) {
            r.close();
        }
    }

    @Override
    public String toString() {
        return "ServiceDiscovery[" + basePath + ", registered=" + registrations.keySet() + "]";
    }
}
