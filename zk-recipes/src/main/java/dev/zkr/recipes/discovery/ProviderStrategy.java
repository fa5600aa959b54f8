package dev.zkr.recipes.discovery;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * How a {@link ServiceProvider} picks one instance among those it offers. The strategies keep state (a turn, a
 * chosen instance): give each provider its own, from these factories.
 */
@FunctionalInterface
public interface ProviderStrategy {

    /** One of the instances (never a list's absent member); empty if the list is empty. */
    Optional<ServiceInstance> choose(List<ServiceInstance> instances);

    /** Each in turn, in node-name order (the default). */
    static ProviderStrategy roundRobin() {
        AtomicInteger turn = new AtomicInteger();
        return instances -> instances.isEmpty() ? Optional.empty()
                : Optional.of(instances.get(Math.floorMod(turn.getAndIncrement(), instances.size())));
    }

    /** Uniformly at random. */
    static ProviderStrategy random() {
        return instances -> instances.isEmpty() ? Optional.empty()
                : Optional.of(instances.get(ThreadLocalRandom.current().nextInt(instances.size())));
    }

    /** The same instance (by id, in its latest version) while it is offered; a new one, by round robin, when not. */
    static ProviderStrategy sticky() {
        return sticky(roundRobin());
    }

    /** The same instance (by id, in its latest version) while it is offered; a new one chosen by {@code first}. */
    static ProviderStrategy sticky(ProviderStrategy first) {
        AtomicReference<String> chosen = new AtomicReference<>();
        return instances -> {
            synchronized (chosen) {
                String id = chosen.get();
                if (id != null) {
                    for (ServiceInstance i : instances) {
                        if (i.id().equals(id)) {
                            return Optional.of(i);
                        }
                    }
                }
                Optional<ServiceInstance> next = first.choose(instances);
                chosen.set(next.map(ServiceInstance::id).orElse(null));
                return next;
            }
        };
    }
}
