package dev.zkr.recipes.discovery;

import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Picks instances of one service (Curator's {@code ServiceProvider}) from its own {@link ServiceCache}, by a
 * {@link ProviderStrategy}: only enabled instances that pass the filter are offered (Curator's CURATOR-275).
 */
public final class ServiceProvider implements AutoCloseable {

    private final ServiceCache cache;
    private final ProviderStrategy strategy;
    private final Predicate<ServiceInstance> filter;
    private final Consumer<ServiceProvider> onClose;

    ServiceProvider(ServiceCache cache, ProviderStrategy strategy, Predicate<ServiceInstance> filter,
                    Consumer<ServiceProvider> onClose) {
        this.cache = cache;
        this.strategy = strategy;
        this.filter = filter;
        this.onClose = onClose;
    }

    /** One instance chosen by the strategy; empty if none is offered. No round trip. */
    public Optional<ServiceInstance> instance() {
        return strategy.choose(instances());
    }

    /** The instances offered now (enabled, passing the filter), in node-name order. */
    public List<ServiceInstance> instances() {
        return cache.instances().stream().filter(i -> i.enabled() && filter.test(i)).toList();
    }

    /** The provider's cache (for listeners). */
    public ServiceCache cache() {
        return cache;
    }

    /** Closes the provider's cache. Idempotent. */
    @Override
    public void close() {
        cache.close();
        onClose.accept(this);
    }

    @Override
    public String toString() {
        return "ServiceProvider[" + cache.name() + "]";
    }
}
