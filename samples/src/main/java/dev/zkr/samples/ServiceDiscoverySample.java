package dev.zkr.samples;

import dev.zkr.client.ZkClient;
import dev.zkr.recipes.Recipes;
import dev.zkr.recipes.discovery.ProviderStrategy;
import dev.zkr.recipes.discovery.ServiceCache;
import dev.zkr.recipes.discovery.ServiceDiscovery;
import dev.zkr.recipes.discovery.ServiceInstance;
import dev.zkr.recipes.discovery.ServiceProvider;
import dev.zkr.recipes.discovery.ServiceRegistration;
import dev.zkr.testkit.TestEnsemble;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Service discovery: two API servers register under {@code /services} (Curator's layout and JSON); a client's
 * cache follows them and a sticky provider keeps sending it to one server; that server's session expires and it is
 * registered again by the new session; it is taken out of service (disabled), then unregistered, and the provider
 * moves on.
 */
public final class ServiceDiscoverySample {

    public static void main(String[] args) {
        Samples.quietLogs();
        try (TestEnsemble ensemble = TestEnsemble.builder().servers(1).start()) {
            ZkClient server1 = ensemble.newClient();
            ZkClient server2 = ensemble.newClient();
            ZkClient caller = ensemble.newClient();

            ServiceDiscovery d1 = Recipes.using(server1).serviceDiscovery("/services");
            ServiceDiscovery d2 = Recipes.using(server2).serviceDiscovery("/services");
            ServiceRegistration a = d1.register(instance("api-1", 8081));
            ServiceRegistration b = d2.register(instance("api-2", 8082));
            a.await(Duration.ofSeconds(10));
            b.await(Duration.ofSeconds(10));

            ServiceDiscovery client = Recipes.using(caller).serviceDiscovery("/services");
            Samples.say("services: %s, api instances: %s", client.names(), ids(client.instances("api")));
            ServiceCache cache = client.cache("api");
            cache.addListener(now -> Samples.say("cache: %s", ids(now)));
            ServiceProvider provider = client.provider("api").strategy(ProviderStrategy.sticky()).start();
            ServiceInstance chosen = provider.instance().orElseThrow();
            Samples.say("sticky provider: %s (%s), again: %s", chosen.id(), chosen.buildUri(),
                    provider.instance().orElseThrow().id());

            ServiceDiscovery owner = chosen.id().equals("api-1") ? d1 : d2;
            ZkClient ownerClient = chosen.id().equals("api-1") ? server1 : server2;
            long old = ownerClient.sessionId();
            ensemble.expireSession(old);
            Samples.say("%s's session expired", chosen.id());
            Samples.awaitTrue(() -> ownerClient.sessionId() != old
                    && owner.registration(chosen.id()).orElseThrow().isPresent(), "registered again");
            Samples.say("%s registered again by its new session; provider: %s", chosen.id(),
                    provider.instance().orElseThrow().id());

            owner.update(chosen.toBuilder().enabled(false).build());
            Samples.awaitTrue(() -> !provider.instance().orElseThrow().id().equals(chosen.id()), "disabled seen");
            Samples.say("%s disabled: still listed %s, provider now: %s", chosen.id(), ids(cache.instances()),
                    provider.instance().orElseThrow().id());

            owner.unregister(chosen.id());
            Samples.awaitTrue(() -> cache.instances().size() == 1, "the unregistration seen");
            Samples.say("%s unregistered: %s", chosen.id(), ids(client.instances("api")));

            client.close();
            d1.close();
            d2.close();
            if (!Recipes.using(caller).serviceDiscovery("/services").instances("api").isEmpty()) {
                throw new IllegalStateException("instances left after close");
            }
        }
    }

    private static ServiceInstance instance(String id, int port) {
        return ServiceInstance.builder("api").id(id).address("10.0.0.1").port(port)
                .uriSpec("{scheme}://{address}:{port}/v1").payloadMap(Map.of("zone", "eu-1")).build();
    }

    private static List<String> ids(List<ServiceInstance> instances) {
        return instances.stream().map(ServiceInstance::id).toList();
    }
}
