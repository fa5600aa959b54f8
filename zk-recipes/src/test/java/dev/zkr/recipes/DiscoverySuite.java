package dev.zkr.recipes;

import dev.zkr.client.CreateMode;
import dev.zkr.client.Parents;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.recipes.discovery.ProviderStrategy;
import dev.zkr.recipes.discovery.ServiceCache;
import dev.zkr.recipes.discovery.ServiceDiscovery;
import dev.zkr.recipes.discovery.ServiceInstance;
import dev.zkr.recipes.discovery.ServiceProvider;
import dev.zkr.recipes.discovery.ServiceRegistration;
import dev.zkr.recipes.discovery.ServiceType;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Service discovery: registrations kept present (deletion, expiry, restarts, lost responses) and never duplicated,
 * queries, the cache and the providers' strategies; one test per Curator discovery bug (named).
 */
public abstract class DiscoverySuite extends RecipeSuite {

    private static ServiceInstance api(String id, int port) {
        return ServiceInstance.builder("api").id(id).address("10.0.0." + port % 250).port(port)
                .payloadMap(Map.of("zone", "z" + port)).uriSpec("{scheme}://{address}:{port}").build();
    }

    private static Set<String> ids(List<ServiceInstance> instances) {
        return instances.stream().map(ServiceInstance::id).collect(Collectors.toSet());
    }

    private static String data(ZkClient c, String path) {
        c.sync(path);
        return new String(c.getData(path).data(), StandardCharsets.UTF_8);
    }

    /** The children, listed once the observer's connection is back (after a restart). */
    private static List<String> listing(ZkClient observer, String path) {
        List<List<String>> got = new java.util.ArrayList<>();
        eventually("a listing of " + path, () -> {
            try {
                got.add(children(observer, path));
                return true;
            } catch (ZkException.ConnectionLoss notBackYet) {
                return false;
            }
        });
        return got.get(0);
    }

    /** Waits until the queue delivers a list of instances with exactly these ids (listener calls, in order). */
    private static List<ServiceInstance> awaitList(BlockingQueue<List<ServiceInstance>> seen, Set<String> ids)
            throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            List<ServiceInstance> l = seen.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (l == null) {
                fail("no listener call with " + ids);
            }
            if (ids(l).equals(ids)) {
                return l;
            }
        }
    }

    @Test
    void registerQueryUpdateUnregister() {
        ZkClient c = client();
        ServiceDiscovery d = Recipes.using(c).serviceDiscovery(path("services"));
        ServiceRegistration a = d.register(api("a", 8080));
        ServiceRegistration b = d.register(api("b", 8081));
        d.register(ServiceInstance.builder("web").id("w").build());
        assertTrue(a.await(WAIT) && b.await(WAIT));
        eventually("web registered", () -> d.registration("w").orElseThrow().isPresent());
        assertEquals(List.of("api", "web"), d.names());
        assertEquals(List.of(api("a", 8080), api("b", 8081)).stream().map(ServiceInstance::id).toList(),
                d.instances("api").stream().map(ServiceInstance::id).toList());
        ServiceInstance read = d.instance("api", "a").orElseThrow();
        assertEquals(a.instance(), read, "everything read back as registered");
        assertEquals(Map.of("zone", "z8080"), read.payloadMap());
        assertEquals("http://10.0.0.80:8080", read.buildUri());
        ServiceInstance moved = read.toBuilder().port(9090).build();
        d.update(moved);
        assertTrue(a.await(WAIT));
        assertEquals(moved, d.instance("api", "a").orElseThrow());
        assertTrue(d.unregister("b"));
        assertFalse(d.unregister("b"));
        assertEquals(Optional.empty(), d.instance("api", "b"));
        assertEquals(Set.of("a"), ids(d.instances("api")));
        assertEquals(List.of(), d.instances("nothing"));
        d.close();
        eventually("all gone on close", () -> children(c, path("services") + "/api").isEmpty());
        assertNoWatches(c);
    }

    @Test
    void badInputIsRejected() {
        ServiceDiscovery d = Recipes.using(client()).serviceDiscovery(path("services"));
        assertThrows(IllegalArgumentException.class, () -> ServiceInstance.builder("a/b"));
        assertThrows(IllegalArgumentException.class, () -> ServiceInstance.builder("api").id(""));
        assertThrows(IllegalArgumentException.class, () -> ServiceInstance.builder("api").port(70000));
        assertThrows(IllegalArgumentException.class, () -> ServiceInstance.builder("api").payloadJson("{\"a\":"));
        assertThrows(IllegalArgumentException.class, () -> ServiceInstance.builder("api").uriSpec("{a{b}}"));
        assertThrows(IllegalArgumentException.class, () -> d.instances(".."));
        assertThrows(ZkException.InvalidPath.class, () -> Recipes.using(client()).serviceDiscovery("no-slash"));
        d.register(api("a", 1));
        assertThrows(IllegalArgumentException.class, () -> d.register(ServiceInstance.builder("web").id("a").build()),
                "one id, two services");
        assertThrows(IllegalArgumentException.class, () -> d.update(api("zz", 1)), "not registered");
        d.close();
    }

    /** Registering an id twice updates the one node (Curator deletes and makes it again). */
    @Test
    void registeringAnIdAgainUpdatesTheOneNode() {
        ZkClient c = client();
        ServiceDiscovery d = Recipes.using(c).serviceDiscovery(path("services"));
        ServiceRegistration first = d.register(api("a", 1));
        assertTrue(first.await(WAIT));
        long czxid = c.exists(path("services/api/a")).czxid();
        ServiceRegistration again = d.register(api("a", 2));
        assertTrue(again == first);
        assertTrue(again.await(WAIT));
        assertEquals(List.of("a"), children(c, path("services/api")));
        assertEquals(czxid, c.exists(path("services/api/a")).czxid(), "the same node");
        assertEquals(2, d.instance("api", "a").orElseThrow().port().getAsInt());
        d.close();
    }

    /** A DYNAMIC_SEQUENTIAL registration whose create response is lost is found again: one node. */
    @Test
    void aSequentialRegistrationWithALostCreateHasOneNode() {
        ZkClient observer = client(Duration.ofSeconds(30));
        observer.create(path("services/api"), new byte[0], CreateMode.PERSISTENT, Parents.PERSISTENT);
        LostResponseClient flaky = new LostResponseClient(client(Duration.ofSeconds(30)))
                .loseCreates(1, p -> p.contains("/_c_"));
        ServiceDiscovery d = Recipes.using(flaky).serviceDiscovery(path("services"));
        ServiceRegistration r = d.register(ServiceInstance.builder("api").id("seq")
                .serviceType(ServiceType.DYNAMIC_SEQUENTIAL).build());
        assertTrue(r.await(WAIT));
        assertEquals(1, flaky.lost());
        assertEquals(1, children(observer, path("services/api")).size(), "one node");
        assertEquals(Set.of("seq"), ids(d.instances("api")));
        d.close();
        eventually("gone", () -> children(observer, path("services/api")).isEmpty());
    }

    /**
     * A DYNAMIC_SEQUENTIAL registration stays one node across reconnects (server restart, same session) and session
     * expiry (Curator's discovery creates its sequential node again on every CONNECTED/RECONNECTED event, so an
     * instance registered before the CONNECTED event is delivered, or kept across a reconnect, gets a second node: seen
     * in zk-apache's DiscoveryInteropSuite).
     */
    @Test
    void aSequentialRegistrationIsOneNodeAcrossReconnectsAndExpiry() {
        ZkClient c = client(Duration.ofSeconds(30));
        ZkClient observer = client(Duration.ofSeconds(30));
        ServiceDiscovery d = Recipes.using(c).serviceDiscovery(path("services"));
        ServiceRegistration r = d.register(ServiceInstance.builder("api").id("seq")
                .serviceType(ServiceType.DYNAMIC_SEQUENTIAL).build());
        assertTrue(r.await(WAIT));
        String first = r.path().orElseThrow();
        backend.restartServer();
        eventually("reconnected, still registered", r::isPresent);
        assertEquals(List.of(first.substring(first.lastIndexOf('/') + 1)), listing(observer, path("services/api")),
                "the same one node after a reconnect");
        long old = c.sessionId();
        backend.expireSession(c);
        eventually("registered by the new session", () -> c.sessionId() != old && r.isPresent());
        assertEquals(1, listing(observer, path("services/api")).size(), "one node after expiry");
        assertEquals(Set.of("seq"), ids(d.instances("api")));
        d.close();
    }

    @Test
    void aStaticRegistrationIsPersistentAndDeletedOnUnregister() {
        ZkClient c = client();
        ServiceDiscovery d = Recipes.using(c).serviceDiscovery(path("services"));
        ServiceRegistration r = d.register(ServiceInstance.builder("api").id("s")
                .serviceType(ServiceType.STATIC).build());
        assertTrue(r.await(WAIT));
        assertEquals(0, c.exists(path("services/api/s")).ephemeralOwner());
        r.close();
        assertEquals(null, c.exists(path("services/api/s")));
        d.close();
    }

    /** Netflix/curator#131 (Curator 1.x did not announce again after a reconnect): back after deletion and expiry. */
    @Test
    void aRegistrationComesBackAfterDeletionAndExpiry_NetflixCurator131() {
        ZkClient c = client();
        ZkClient observer = client();
        ServiceDiscovery d = Recipes.using(c).serviceDiscovery(path("services"));
        ServiceRegistration r = d.register(api("a", 1));
        assertTrue(r.await(WAIT));
        observer.delete(path("services/api/a"), -1);
        eventually("made again", () -> observer.exists(path("services/api/a")) != null);
        long old = c.sessionId();
        backend.expireSession(c);
        eventually("made again by the new session", () -> {
            var s = observer.exists(path("services/api/a"));
            return c.sessionId() != old && s != null && s.ephemeralOwner() == c.sessionId();
        });
        d.close();
    }

    /** CURATOR-181 / CURATOR-146: after an update, a new session registers the updated instance, not the old. */
    @Test
    void anExpiredSessionRegistersTheUpdatedInstance_CURATOR_181() {
        ZkClient c = client();
        ZkClient observer = client();
        ServiceDiscovery d = Recipes.using(c).serviceDiscovery(path("services"));
        ServiceRegistration r = d.register(api("a", 1));
        assertTrue(r.await(WAIT));
        d.update(api("a", 2));
        assertTrue(r.await(WAIT));
        long old = c.sessionId();
        backend.expireSession(c);
        eventually("registered again by the new session", () -> c.sessionId() != old && r.isPresent());
        assertTrue(data(observer, path("services/api/a")).contains("\"port\":2"));
        assertEquals(2, Recipes.using(observer).serviceDiscovery(path("services")).instance("api", "a")
                .orElseThrow().port().getAsInt());
        d.close();
    }

    /**
     * CURATOR-164: an unregistered instance is never registered again by a later reconnect or session (Curator's
     * re-registration could race the unregister and bring back a phantom).
     */
    @Test
    void anUnregisteredInstanceStaysGoneAcrossExpiryAndRestart_CURATOR_164() {
        ZkClient c = client(Duration.ofSeconds(30));
        ZkClient observer = client(Duration.ofSeconds(30));
        ServiceDiscovery d = Recipes.using(c).serviceDiscovery(path("services"));
        ServiceRegistration keep = d.register(api("keep", 1));
        ServiceRegistration gone = d.register(api("gone", 2));
        assertTrue(keep.await(WAIT) && gone.await(WAIT));
        d.unregister("gone");
        backend.restartServer();
        assertTrue(keep.await(WAIT));
        long old = c.sessionId();
        backend.expireSession(c);
        eventually("keep registered by the new session", () -> c.sessionId() != old && keep.isPresent());
        assertEquals(List.of("keep"), children(observer, path("services/api")));
        d.close();
    }

    /**
     * CURATOR-617: unregistering while disconnected neither fails nor is forgotten: the delete goes through once
     * the same session is back.
     */
    @Test
    void unregisterWhileDisconnectedDeletesOnReconnect_CURATOR_617() {
        ZkClient c = client(Duration.ofSeconds(30));
        ZkClient observer = client(Duration.ofSeconds(30));
        ServiceDiscovery d = Recipes.using(c).serviceDiscovery(path("services"));
        ServiceRegistration r = d.register(api("a", 1));
        assertTrue(r.await(WAIT));
        long session = c.sessionId();
        backend.stopServer();
        try {
            eventually("disconnected", () -> !c.state().isConnected());
            assertTrue(d.unregister("a"));
            assertFalse(d.registration("a").isPresent());
            assertFalse(d.unregister("a"), "idempotent");
        } finally {
            backend.startServer();
        }
        eventually("deleted once back", () -> c.state().isConnected() && children(observer, path("services/api"))
                .isEmpty());
        assertEquals(session, c.sessionId(), "the same session: the delete did it, not an expiry");
        d.close();
    }

    /** Another session's node of the same path is neither deleted nor taken over: ours comes when it goes. */
    @Test
    void anotherSessionsNodeIsLeftAlone() {
        ZkClient other = client();
        ZkClient c = client();
        other.create(path("services/api/a"), "theirs".getBytes(StandardCharsets.UTF_8), CreateMode.EPHEMERAL,
                Parents.PERSISTENT);
        ServiceDiscovery d = Recipes.using(c).serviceDiscovery(path("services"));
        ServiceRegistration r = d.register(api("a", 1));
        assertFalse(r.await(Duration.ofMillis(300)));
        assertEquals("theirs", data(c, path("services/api/a")));
        other.close();
        assertTrue(r.await(WAIT));
        assertEquals(c.sessionId(), c.exists(path("services/api/a")).ephemeralOwner());
        d.close();
    }

    @Test
    void theCacheFollowsRegistrationsUpdatesAndRemovals() throws InterruptedException {
        ZkClient c = client();
        ServiceDiscovery reg = Recipes.using(client()).serviceDiscovery(path("services"));
        ServiceDiscovery d = Recipes.using(c).serviceDiscovery(path("services"));
        ServiceCache cache = d.cache("api");
        BlockingQueue<List<ServiceInstance>> seen = new LinkedBlockingQueue<>();
        cache.addListener(seen::add);
        assertEquals(List.of(), cache.instances());
        reg.register(api("a", 1));
        awaitList(seen, Set.of("a"));
        reg.register(api("b", 2));
        awaitList(seen, Set.of("a", "b"));
        reg.update(api("a", 3));
        List<ServiceInstance> updated = awaitList(seen, Set.of("a", "b"));
        assertEquals(3, updated.get(0).port().getAsInt(), "the update seen");
        reg.unregister("b");
        awaitList(seen, Set.of("a"));
        assertEquals(Set.of("a"), ids(cache.instances()));
        assertEquals(3, cache.instance("a").orElseThrow().port().getAsInt());
        reg.close();
        awaitList(seen, Set.of());
        cache.close();
        assertNoWatches(c);
        d.close();
    }

    /** CURATOR-705: instances registered before the cache starts are in it when it has started. */
    @Test
    void instancesRegisteredBeforeTheCacheAreThereAtStart_CURATOR_705() {
        ServiceDiscovery reg = Recipes.using(client()).serviceDiscovery(path("services"));
        assertTrue(reg.register(api("a", 1)).await(WAIT));
        assertTrue(reg.register(api("b", 2)).await(WAIT));
        ServiceDiscovery d = Recipes.using(client()).serviceDiscovery(path("services"));
        ServiceCache cache = d.cache("api");
        assertEquals(Set.of("a", "b"), ids(cache.instances()));
        try (ServiceProvider p = d.provider("api").start()) {
            assertTrue(p.instance().isPresent(), "a provider too");
        }
        d.close();
        reg.close();
    }

    /** CURATOR-163: the service node deleted (no instances left) and made again: the cache sees the new instance. */
    @Test
    void theCacheSurvivesTheServiceNodeDeletedAndMadeAgain_CURATOR_163() throws InterruptedException {
        ZkClient admin = client();
        ServiceDiscovery reg = Recipes.using(client()).serviceDiscovery(path("services"));
        ServiceDiscovery d = Recipes.using(client()).serviceDiscovery(path("services"));
        ServiceCache cache = d.cache("api");
        BlockingQueue<List<ServiceInstance>> seen = new LinkedBlockingQueue<>();
        cache.addListener(seen::add);
        reg.register(api("a", 1));
        awaitList(seen, Set.of("a"));
        reg.unregister("a");
        awaitList(seen, Set.of());
        try {
            admin.delete(path("services/api"), -1);
        } catch (ZkException.NoNode containerGoneAlready) {
            // the server removed the empty container first
        }
        reg.register(api("b", 2));
        awaitList(seen, Set.of("b"));
        d.close();
        reg.close();
    }

    /** CURATOR-574: a node with empty (or non-JSON) data under a service is skipped, never a crash. */
    @Test
    void nodesThatAreNotInstancesAreSkipped_CURATOR_574() {
        ZkClient c = client();
        c.create(path("services/api/empty"), new byte[0], CreateMode.PERSISTENT, Parents.PERSISTENT);
        c.create(path("services/api/junk"), "{\"name\":1}".getBytes(StandardCharsets.UTF_8), CreateMode.PERSISTENT);
        ServiceDiscovery d = Recipes.using(c).serviceDiscovery(path("services"));
        assertTrue(d.register(api("a", 1)).await(WAIT));
        assertEquals(Set.of("a"), ids(d.instances("api")));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> d.instance("api", "empty"));
        assertTrue(e.getMessage().contains("/services/api/empty"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> d.instance("api", "junk"));
        ServiceCache cache = d.cache("api");
        assertEquals(Set.of("a"), ids(cache.instances()));
        d.close();
    }

    /** The cache re-synchronises after the server restarts: what changed meanwhile is seen. */
    @Test
    void theCacheFollowsAcrossAServerRestart() {
        ServiceDiscovery reg = Recipes.using(client(Duration.ofSeconds(30))).serviceDiscovery(path("services"));
        ServiceDiscovery d = Recipes.using(client(Duration.ofSeconds(30))).serviceDiscovery(path("services"));
        ServiceCache cache = d.cache("api");
        assertTrue(reg.register(api("a", 1)).await(WAIT));
        eventually("a seen", () -> ids(cache.instances()).equals(Set.of("a")));
        backend.restartServer();
        assertTrue(reg.register(api("b", 2)).await(WAIT));
        eventually("b seen after the restart", () -> ids(cache.instances()).equals(Set.of("a", "b")));
        d.close();
        reg.close();
    }

    /** CURATOR-275: a disabled instance is listed by queries and caches but never offered by a provider. */
    @Test
    void aDisabledInstanceIsNotProvided_CURATOR_275() {
        ServiceDiscovery d = Recipes.using(client()).serviceDiscovery(path("services"));
        assertTrue(d.register(api("on", 1)).await(WAIT));
        assertTrue(d.register(api("off", 2).toBuilder().enabled(false).build()).await(WAIT));
        assertEquals(Set.of("on", "off"), ids(d.instances("api")));
        assertFalse(d.instance("api", "off").orElseThrow().enabled());
        try (ServiceProvider p = d.provider("api").start()) {
            assertEquals(Set.of("on", "off"), ids(p.cache().instances()));
            assertEquals(Set.of("on"), ids(p.instances()));
            for (int i = 0; i < 5; i++) {
                assertEquals("on", p.instance().orElseThrow().id());
            }
        }
        d.close();
    }

    @Test
    void roundRobinTakesEachInTurn() {
        ServiceDiscovery d = Recipes.using(client()).serviceDiscovery(path("services"));
        for (String id : List.of("a", "b", "c")) {
            assertTrue(d.register(api(id, 1)).await(WAIT));
        }
        try (ServiceProvider p = d.provider("api").strategy(ProviderStrategy.roundRobin()).start()) {
            StringBuilder order = new StringBuilder();
            for (int i = 0; i < 6; i++) {
                order.append(p.instance().orElseThrow().id());
            }
            assertEquals("abcabc", order.toString());
        }
        try (ServiceProvider p = d.provider("api").filter(i -> !i.id().equals("b")).start()) {
            assertEquals(Set.of("a", "c"), ids(p.instances()));
        }
        d.close();
    }

    @Test
    void randomPicksOnlyRegisteredInstances() {
        ServiceDiscovery d = Recipes.using(client()).serviceDiscovery(path("services"));
        try (ServiceProvider p = d.provider("api").strategy(ProviderStrategy.random()).start()) {
            assertEquals(Optional.empty(), p.instance(), "none registered");
            for (String id : List.of("a", "b", "c")) {
                assertTrue(d.register(api(id, 1)).await(WAIT));
            }
            eventually("all three seen", () -> p.instances().size() == 3);
            Set<String> picked = new HashSet<>();
            for (int i = 0; i < 200; i++) {
                picked.add(p.instance().orElseThrow().id());
            }
            assertEquals(Set.of("a", "b", "c"), picked, "all, and only, the registered ones");
        }
        d.close();
    }

    /** Sticky keeps its instance (also across an update of it) while it is registered, then moves on. */
    @Test
    void stickyKeepsItsInstanceWhileItIsRegistered() {
        ServiceDiscovery d = Recipes.using(client()).serviceDiscovery(path("services"));
        for (String id : List.of("a", "b", "c")) {
            assertTrue(d.register(api(id, 1)).await(WAIT));
        }
        try (ServiceProvider p = d.provider("api").strategy(ProviderStrategy.sticky(ProviderStrategy.random()))
                .start()) {
            String first = p.instance().orElseThrow().id();
            for (int i = 0; i < 20; i++) {
                assertEquals(first, p.instance().orElseThrow().id());
            }
            d.update(d.registration(first).orElseThrow().instance().toBuilder().port(7).build());
            eventually("update seen", () -> p.instance().orElseThrow().port().getAsInt() == 7);
            assertEquals(first, p.instance().orElseThrow().id(), "the same instance after its update");
            d.unregister(first);
            eventually("moved on", () -> !p.instance().orElseThrow().id().equals(first));
            String second = p.instance().orElseThrow().id();
            assertNotEquals(first, second);
            for (int i = 0; i < 20; i++) {
                assertEquals(second, p.instance().orElseThrow().id());
            }
        }
        d.close();
    }

    @Test
    void closeUnregistersAndRemovesEveryWatch() {
        ZkClient c = client();
        ZkClient observer = client();
        ServiceDiscovery d = Recipes.using(c).serviceDiscovery(path("services"));
        assertTrue(d.register(api("a", 1)).await(WAIT));
        d.cache("api");
        d.provider("api").strategy(ProviderStrategy.sticky()).start();
        d.close();
        d.close();
        assertEquals(List.of(), children(observer, path("services/api")));
        assertNoWatches(c);
        assertThrows(IllegalStateException.class, () -> d.register(api("b", 1)));
    }
}
