package dev.zkr.recipes.discovery;

import dev.zkr.recipes.PersistentNode;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * One instance registered by a {@link ServiceDiscovery}: its node is kept present with the instance's latest JSON
 * (made again after deletion by others, session expiry or a server restart; data set while disconnected written on
 * reconnect) by the recipes' persistent node, until {@link #close()} unregisters it.
 */
public final class ServiceRegistration implements AutoCloseable {

    private final PersistentNode node;
    private final Consumer<ServiceRegistration> onClose;
    private volatile ServiceInstance instance;
    private volatile boolean closed;

    ServiceRegistration(ServiceInstance instance, PersistentNode node, Consumer<ServiceRegistration> onClose) {
        this.instance = instance;
        this.node = node;
        this.onClose = onClose;
    }

    /** The instance as registered last (initially, or by {@link #update}). */
    public ServiceInstance instance() {
        return instance;
    }

    /**
     * Replaces the instance's data (same name, id and service type, else {@link IllegalArgumentException}): written
     * now if connected, else once the connection is back, and what a new session registers from then on.
     */
    public synchronized void update(ServiceInstance updated) {
        Objects.requireNonNull(updated, "instance");
        ServiceInstance current = instance;
        if (!updated.name().equals(current.name()) || !updated.id().equals(current.id())
                || updated.serviceType() != current.serviceType()) {
            throw new IllegalArgumentException("an update keeps the name, id and service type of " + current
                    + ": " + updated);
        }
        if (closed) {
            throw new IllegalStateException("unregistered: " + current);
        }
        instance = updated;
        node.setData(InstanceJson.write(updated));
    }

    /**
     * Waits at most {@code timeout} until the node is there, ours, with the latest data; false on timeout or once
     * unregistered. Honours interrupts ({@link dev.zkr.client.ZkException.Interrupted}, flag kept).
     */
    public boolean await(Duration timeout) {
        return node.await(timeout);
    }

    /** True if, as last seen, the node is there, ours, with the latest data. */
    public boolean isPresent() {
        return node.isPresent();
    }

    /** The node's path once made (DYNAMIC_SEQUENTIAL: with the protected prefix and the sequence number). */
    public Optional<String> path() {
        return node.actualPath();
    }

    /** Unregisters: deletes the node (only ours) and stops keeping it. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        onClose.accept(this);
        node.close();
    }

    @Override
    public String toString() {
        return "ServiceRegistration[" + instance + ", present=" + node.isPresent() + "]";
    }
}
