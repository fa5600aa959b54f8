package dev.zkr.apache.curator;

import dev.zkr.client.ZkClient;
import dev.zkr.recipes.Recipes;
import dev.zkr.recipes.discovery.ServiceCache;
import dev.zkr.recipes.discovery.ServiceDiscovery;
import dev.zkr.recipes.discovery.ServiceInstance;
import dev.zkr.recipes.discovery.ServiceProvider;
import dev.zkr.recipes.discovery.ServiceRegistration;
import dev.zkr.recipes.discovery.ServiceType;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.x.discovery.ServiceDiscoveryBuilder;
import org.apache.curator.x.discovery.UriSpec;
import org.apache.curator.x.discovery.details.JsonInstanceSerializer;
import org.apache.curator.x.discovery.details.ServiceCacheListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * zkr's service discovery and Curator's curator-x-discovery 5.7.1 (the real jar) find each other's instances, both
 * ways: Curator registers, zkr's query, cache and provider see it (payload included), and the other way round with
 * Curator's {@code queryForInstances}, {@code ServiceCache} and {@code ServiceProvider}; updates and unregistrations
 * are seen both ways. On Apache ZooKeeper (zkr's recipes through {@code ApacheZkClient}) and on a zkr server (zkr's
 * own client, Curator on zkr's client port): see the two subclasses.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class DiscoveryInteropSuite {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String BASE = "/discovery";

    /** A Curator payload type: Curator writes it with its class tag, zkr reads its JSON. */
    public static final class Details {
        public String zone;
        public int weight;

        public Details() {
        }

        Details(String zone, int weight) {
            this.zone = zone;
            this.weight = weight;
        }
    }

    protected abstract String connectString();

    protected abstract ZkClient zkrClient();

    private static void eventually(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out waiting for: " + what);
            }
            try {
                Thread.sleep(10); // polling with a deadline, not synchronisation
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted");
            }
        }
    }

    /**
     * A started Curator client, connected: Curator's discovery registers its instances again on the CONNECTED event,
     * and a DYNAMIC_SEQUENTIAL instance registered before that event is delivered gets a second node (seen here under
     * load; zkr's {@code DiscoverySuite.aSequentialRegistrationIsOneNodeAcrossReconnectsAndExpiry} checks zkr never
     * does that).
     */
    private CuratorFramework curator() throws InterruptedException {
        CuratorFramework c = CuratorFrameworkFactory.newClient(connectString(), new ExponentialBackoffRetry(100, 5));
        c.start();
        assertTrue(c.blockUntilConnected(20, TimeUnit.SECONDS), "Curator connected");
        return c;
    }

    private static <T> org.apache.curator.x.discovery.ServiceDiscovery<T> curatorDiscovery(CuratorFramework c,
            Class<T> payload, String base, boolean compatible) throws Exception {
        org.apache.curator.x.discovery.ServiceDiscovery<T> d = ServiceDiscoveryBuilder.builder(payload).client(c)
                .basePath(base).serializer(new JsonInstanceSerializer<>(payload, compatible)).build();
        d.start();
        return d;
    }

    private static Set<String> ids(Collection<ServiceInstance> instances) {
        return instances.stream().map(ServiceInstance::id).collect(Collectors.toSet());
    }

    private static Set<String> curatorIds(Collection<? extends org.apache.curator.x.discovery.ServiceInstance<?>> l) {
        return l.stream().map(org.apache.curator.x.discovery.ServiceInstance::getId).collect(Collectors.toSet());
    }

    private static String base(String test) {
        return BASE + "/" + test + "-" + System.nanoTime();
    }

    @Test
    void curatorRegistersAndZkrFindsIt() throws Exception {
        String base = base("c2z");
        try (CuratorFramework c = curator(); ZkClient z = zkrClient()) {
            org.apache.curator.x.discovery.ServiceDiscovery<Details> cd = curatorDiscovery(c, Details.class, base,
                    true);
            org.apache.curator.x.discovery.ServiceInstance<Details> ci = org.apache.curator.x.discovery
                    .ServiceInstance.<Details>builder().name("api").id("c1").address("10.1.2.3").port(8080)
                    .sslPort(8443).payload(new Details("eu-1", 3)).registrationTimeUTC(1234567890123L)
                    .uriSpec(new UriSpec("{scheme}://{address}:{ssl-port}/v1")).build();
            cd.registerService(ci);

            ServiceDiscovery zd = Recipes.using(z).serviceDiscovery(base);
            assertEquals(List.of("api"), zd.names());
            ServiceInstance zi = zd.instance("api", "c1").orElseThrow();
            assertEquals("api", zi.name());
            assertEquals("10.1.2.3", zi.address().orElseThrow());
            assertEquals(8080, zi.port().getAsInt());
            assertEquals(8443, zi.sslPort().getAsInt());
            assertEquals(1234567890123L, zi.registrationTimeUtc());
            assertEquals(ServiceType.DYNAMIC, zi.serviceType());
            assertTrue(zi.enabled(), "Curator's default (compatible) JSON has no enabled field: enabled");
            assertEquals(ci.buildUriSpec(), zi.buildUri(), "the same URI from the same spec");
            assertEquals("https://10.1.2.3:8443/v1", zi.buildUri());
            assertEquals(Map.of("zone", "eu-1", "weight", "3"), zi.payloadMap());
            assertTrue(zi.payloadJson().orElseThrow().contains("\"@class\":\"" + Details.class.getName() + "\""),
                    zi.payloadJson().orElseThrow());

            ServiceCache cache = zd.cache("api");
            ServiceProvider provider = zd.provider("api").start();
            assertEquals(Set.of("c1"), ids(cache.instances()));
            assertEquals("c1", provider.instance().orElseThrow().id());

            cd.updateService(org.apache.curator.x.discovery.ServiceInstance.<Details>builder().name("api").id("c1")
                    .address("10.1.2.3").port(9090).payload(new Details("eu-2", 1)).build());
            eventually("the update seen by zkr's cache", () -> cache.instance("c1").map(i -> i.port().getAsInt())
                    .orElse(0) == 9090);
            assertEquals("eu-2", cache.instance("c1").orElseThrow().payloadMap().get("zone"));

            cd.unregisterService(ci);
            eventually("the unregistration seen by zkr's cache", () -> cache.instances().isEmpty());
            eventually("the provider's own cache saw it too", () -> provider.instance().isEmpty());
            assertTrue(zd.instances("api").isEmpty());
            zd.close();
            cd.close();
        }
    }

    @Test
    void zkrRegistersAndCuratorFindsIt() throws Exception {
        String base = base("z2c");
        try (CuratorFramework c = curator(); ZkClient z = zkrClient()) {
            ServiceDiscovery zd = Recipes.using(z).serviceDiscovery(base);
            Map<String, String> payload = new LinkedHashMap<>();
            payload.put("zone", "eu-1");
            payload.put("version", "2.1");
            ServiceInstance zi = ServiceInstance.builder("api").id("z1").address("10.9.8.7").port(8080).sslPort(8443)
                    .payloadMap(payload).registrationTimeUtc(42L).uriSpec("{scheme}://{address}:{port}").build();
            ServiceRegistration r = zd.register(zi);
            assertTrue(r.await(WAIT));

            @SuppressWarnings("rawtypes")
            org.apache.curator.x.discovery.ServiceDiscovery<Map> cd = curatorDiscovery(c, Map.class, base, true);
            assertEquals(List.of("api"), List.copyOf(cd.queryForNames()));
            @SuppressWarnings("rawtypes")
            Collection<org.apache.curator.x.discovery.ServiceInstance<Map>> found = cd.queryForInstances("api");
            assertEquals(1, found.size());
            @SuppressWarnings("rawtypes")
            org.apache.curator.x.discovery.ServiceInstance<Map> ci = found.iterator().next();
            assertEquals("api", ci.getName());
            assertEquals("z1", ci.getId());
            assertEquals("10.9.8.7", ci.getAddress());
            assertEquals(8080, ci.getPort());
            assertEquals(8443, ci.getSslPort());
            assertEquals(42L, ci.getRegistrationTimeUTC());
            assertEquals(org.apache.curator.x.discovery.ServiceType.DYNAMIC, ci.getServiceType());
            assertTrue(ci.isEnabled());
            assertEquals(payload, ci.getPayload());
            assertEquals(LinkedHashMap.class, ci.getPayload().getClass());
            assertEquals(zi.buildUri(), ci.buildUriSpec());
            assertEquals("https://10.9.8.7:8080", ci.buildUriSpec());

            @SuppressWarnings("rawtypes")
            org.apache.curator.x.discovery.ServiceCache<Map> cache = cd.serviceCacheBuilder().name("api").build();
            Semaphore changes = new Semaphore(0);
            cache.addListener(new ServiceCacheListener() {
                @Override
                public void cacheChanged() {
                    changes.release();
                }

                @Override
                public void stateChanged(CuratorFramework client, ConnectionState newState) {
                }
            });
            cache.start();
            assertEquals(Set.of("z1"), curatorIds(cache.getInstances()));
            @SuppressWarnings("rawtypes")
            org.apache.curator.x.discovery.ServiceProvider<Map> provider = cd.serviceProviderBuilder()
                    .serviceName("api").build();
            provider.start();
            assertEquals("z1", provider.getInstance().getId());

            r.update(zi.toBuilder().port(9090).build());
            assertTrue(changes.tryAcquire(WAIT.toSeconds(), TimeUnit.SECONDS), "Curator's cache told of the update");
            eventually("the update seen by Curator's cache", () -> cache.getInstances().size() == 1
                    && cache.getInstances().get(0).getPort() == 9090);
            assertEquals(9090, cd.queryForInstance("api", "z1").getPort());

            zd.register(ServiceInstance.builder("api").id("off").enabled(false).build());
            eventually("Curator's cache sees the disabled instance", () -> cache.getInstances().size() == 2);
            for (int i = 0; i < 4; i++) {
                assertEquals("z1", provider.getInstance().getId(), "Curator's provider skips zkr's disabled one");
            }
            assertFalse(cd.queryForInstance("api", "off").isEnabled());

            zd.unregister("z1");
            zd.unregister("off");
            eventually("the unregistration seen by Curator's cache", () -> cache.getInstances().isEmpty());
            eventually("Curator's provider (its own cache) saw it too", () -> {
                try {
                    return provider.getInstance() == null;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertTrue(cd.queryForInstances("api").isEmpty());
            provider.close();
            cache.close();
            cd.close();
            zd.close();
        }
    }

    /** Sequential and static registrations, and Curator's non-compatible JSON (with enabled), read both ways. */
    @Test
    @SuppressWarnings("rawtypes") // Curator's payload type here is the raw Map its serializer reads
    void serviceTypesAndTheEnabledFieldBothWays() throws Exception {
        String base = base("types");
        try (CuratorFramework c = curator(); ZkClient z = zkrClient()) {
            org.apache.curator.x.discovery.ServiceDiscovery<Map> cd = curatorDiscovery(c, Map.class, base, false);
            cd.registerService(org.apache.curator.x.discovery.ServiceInstance.<Map>builder().name("api").id("cs")
                    .serviceType(org.apache.curator.x.discovery.ServiceType.DYNAMIC_SEQUENTIAL).enabled(false)
                    .build());
            cd.registerService(org.apache.curator.x.discovery.ServiceInstance.<Map>builder().name("api").id("cp")
                    .serviceType(org.apache.curator.x.discovery.ServiceType.STATIC).build());
            ServiceDiscovery zd = Recipes.using(z).serviceDiscovery(base);
            assertTrue(zd.register(ServiceInstance.builder("api").id("zs")
                    .serviceType(ServiceType.DYNAMIC_SEQUENTIAL).build()).await(WAIT));
            assertTrue(zd.register(ServiceInstance.builder("api").id("zp").serviceType(ServiceType.PERMANENT)
                    .payloadJson("[\"java.lang.String\",\"plain\"]").build()).await(WAIT));

            Map<String, ServiceInstance> byId = zd.instances("api").stream()
                    .collect(Collectors.toMap(ServiceInstance::id, i -> i));
            assertEquals(Set.of("cs", "cp", "zs", "zp"), byId.keySet());
            assertEquals(ServiceType.DYNAMIC_SEQUENTIAL, byId.get("cs").serviceType());
            assertFalse(byId.get("cs").enabled(), "Curator's non-compatible JSON carries enabled=false");
            assertEquals(ServiceType.STATIC, byId.get("cp").serviceType());

            org.apache.curator.x.discovery.ServiceDiscovery<Object> reader = curatorDiscovery(c, Object.class, base,
                    true);
            Map<String, org.apache.curator.x.discovery.ServiceInstance<Object>> curatorById = reader
                    .queryForInstances("api").stream()
                    .collect(Collectors.toMap(org.apache.curator.x.discovery.ServiceInstance::getId, i -> i));
            assertEquals(Set.of("cs", "cp", "zs", "zp"), curatorById.keySet());
            assertEquals(org.apache.curator.x.discovery.ServiceType.DYNAMIC_SEQUENTIAL,
                    curatorById.get("zs").getServiceType());
            assertEquals(org.apache.curator.x.discovery.ServiceType.PERMANENT, curatorById.get("zp").getServiceType());
            assertEquals("plain", curatorById.get("zp").getPayload(), "a JSON string payload in Jackson's wrapper");
            assertNull(curatorById.get("zs").getPayload());
            assertNotNull(reader.queryForInstance("api", "zp"), "a fixed name is found by its id");
            reader.close();
            zd.close();
            cd.close();
        }
    }

    /** What Curator writes, for the record (the README quotes it): zkr reads it back exactly. */
    @Test
    void curatorsJsonIsReadAsWritten() throws Exception {
        JsonInstanceSerializer<Details> ser = new JsonInstanceSerializer<>(Details.class);
        org.apache.curator.x.discovery.ServiceInstance<Details> ci = org.apache.curator.x.discovery.ServiceInstance
                .<Details>builder().name("api").id("c1").address("h").port(1).payload(new Details("z", 2))
                .registrationTimeUTC(5).uriSpec(new UriSpec("{scheme}://{address}")).build();
        String json = new String(ser.serialize(ci), StandardCharsets.UTF_8);
        System.out.println("Curator writes: " + json);
        String base = base("json");
        try (CuratorFramework c = curator(); ZkClient z = zkrClient()) {
            c.create().creatingParentsIfNeeded().forPath(base + "/api/c1", json.getBytes(StandardCharsets.UTF_8));
            ServiceInstance zi = Recipes.using(z).serviceDiscovery(base).instance("api", "c1").orElseThrow();
            assertEquals("{\"@class\":\"" + Details.class.getName() + "\",\"zone\":\"z\",\"weight\":2}",
                    zi.payloadJson().orElseThrow());
            assertEquals("{scheme}://{address}", zi.uriSpec().orElseThrow().toString());
        }
    }
}
