package dev.zkr.recipes.discovery;

import java.util.Objects;
import java.util.function.Predicate;

/** Configures a {@link ServiceProvider}; obtain one from {@link ServiceDiscovery#provider(String)}. */
public final class ServiceProviderBuilder {

    private final ServiceDiscovery discovery;
    private final String name;
    private ProviderStrategy strategy = ProviderStrategy.roundRobin();
    private Predicate<ServiceInstance> filter = i -> true;

    ServiceProviderBuilder(ServiceDiscovery discovery, String name) {
        this.discovery = discovery;
        this.name = name;
    }

    /** How to pick an instance (default {@link ProviderStrategy#roundRobin()}); one strategy object per provider. */
    public ServiceProviderBuilder strategy(ProviderStrategy strategy) {
        this.strategy = Objects.requireNonNull(strategy, "strategy");
        return this;
    }

    /** Offers only instances that pass this test too (disabled instances are never offered). */
    public ServiceProviderBuilder filter(Predicate<ServiceInstance> filter) {
        this.filter = this.filter.and(Objects.requireNonNull(filter, "filter"));
        return this;
    }

    /** Starts the provider's cache; returns once it is initialised. */
    public ServiceProvider start() {
        return discovery.startProvider(name, strategy, filter);
    }
}
