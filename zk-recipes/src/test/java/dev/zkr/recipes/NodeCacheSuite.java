package dev.zkr.recipes;

import dev.zkr.client.CreateMode;
import dev.zkr.client.NodeData;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * NodeCache: the copy follows the node in order and never goes back, resynchronises after reconnects and new
 * sessions (with an INITIALIZED signal), and its events replay to the node; one test per Curator cache bug that
 * applies to one node (CURATOR-182/-183, -324, -391, -296).
 */
public abstract class NodeCacheSuite extends RecipeSuite {

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A listener that checks every event against the state the previous ones built, and replays them. */
    static final class Replay {
        final List<CacheEvent> events = Collections.synchronizedList(new ArrayList<>());
        private NodeData state;
        private final List<String> errors = Collections.synchronizedList(new ArrayList<>());

        synchronized void accept(CacheEvent e) {
            events.add(e);
            switch (e.type()) {
                case CREATED -> {
                    if (state != null) {
                        errors.add("CREATED while present: " + events);
                    }
                    state = e.data().orElseThrow();
                }
                case CHANGED -> {
                    NodeData now = e.data().orElseThrow();
                    if (state == null || now.stat().czxid() != state.stat().czxid()
                            || now.stat().mzxid() <= state.stat().mzxid()) {
                        errors.add("CHANGED not forward from " + state + " to " + now);
                    }
                    state = now;
                }
                case DELETED -> {
                    if (state == null) {
                        errors.add("DELETED while absent");
                    }
                    state = null;
                }
                case INITIALIZED -> {
                    NodeData now = e.data().orElse(null);
                    boolean same = now == null ? state == null
                            : state != null && now.stat().equals(state.stat());
                    if (!same && !events.stream().limit(events.size() - 1)
                            .noneMatch(x -> x.type() == CacheEvent.Type.INITIALIZED)) {
                        errors.add("INITIALIZED differs from the replayed state");
                    }
                    state = now;
                }
            }
        }

        synchronized Optional<NodeData> state() {
            return Optional.ofNullable(state);
        }

        long count(CacheEvent.Type type) {
            synchronized (events) {
                return events.stream().filter(e -> e.type() == type).count();
            }
        }

        void assertConsistent() {
            assertEquals(List.of(), errors);
        }
    }

    /** True if the copy equals the server's node (both absent, or same data and Stat). */
    static boolean sameAsServer(ZkClient observer, String path, Optional<NodeData> copy) {
        try {
            NodeData server = observer.getData(path);
            return copy.isPresent() && copy.get().stat().equals(server.stat())
                    && Arrays.equals(copy.get().data(), server.data());
        } catch (ZkException.NoNode e) {
            return copy.isEmpty();
        }
    }

    private NodeCache cache(ZkClient c, String path, Replay replay) {
        NodeCache cache = Recipes.using(c).nodeCache(path);
        cache.addListener(replay::accept);
        return cache.start();
    }

    @Test
    void startReadsTheNodeAndSignalsInitialized() {
        String p = path("cfg");
        ZkClient observer = client();
        observer.create(p, bytes("v1"), CreateMode.PERSISTENT, dev.zkr.client.Parents.CONTAINER);
        Replay replay = new Replay();
        NodeCache cache = cache(client(), p, replay);
        assertEquals("v1", new String(cache.current().orElseThrow().data(), StandardCharsets.UTF_8));
        eventually("INITIALIZED", () -> replay.count(CacheEvent.Type.INITIALIZED) == 1);
        assertEquals(CacheEvent.Type.INITIALIZED, replay.events.get(0).type());
        cache.close();
    }

    @Test
    void followsCreateChangeAndDeleteInOrder() {
        String p = path("cfg");
        ZkClient observer = client();
        ZkClient c = client();
        Replay replay = new Replay();
        NodeCache cache = cache(c, p, replay);
        assertTrue(cache.current().isEmpty());
        observer.create(p, bytes("a"), CreateMode.PERSISTENT, dev.zkr.client.Parents.CONTAINER);
        for (int i = 0; i < 20; i++) {
            observer.setData(p, bytes("v" + i), -1);
        }
        eventually("the copy reached v19", () -> sameAsServer(observer, p, cache.current()));
        eventually("the replay reached v19", () -> sameAsServer(observer, p, replay.state()));
        observer.delete(p, -1);
        eventually("the copy saw the delete", () -> cache.current().isEmpty() && replay.state().isEmpty());
        replay.assertConsistent();
        cache.close();
        assertNoWatches(c);
    }

    /** CURATOR-182/-183: repeated creation and removal of the watched node gave wrong or missing events. */
    @Test
    void curator182And183RepeatedAddAndRemoveOfTheNode() {
        String p = path("flap");
        ZkClient observer = client();
        observer.create(path("parent"), new byte[0], CreateMode.PERSISTENT, dev.zkr.client.Parents.CONTAINER);
        Replay replay = new Replay();
        NodeCache cache = cache(client(), p, replay);
        for (int i = 0; i < 15; i++) {
            observer.create(p, bytes("round " + i), CreateMode.PERSISTENT, dev.zkr.client.Parents.CONTAINER);
            observer.delete(p, -1);
        }
        observer.create(p, bytes("last"), CreateMode.PERSISTENT, dev.zkr.client.Parents.CONTAINER);
        eventually("the copy has the last node", () -> sameAsServer(observer, p, cache.current())
                && sameAsServer(observer, p, replay.state()));
        replay.assertConsistent();
        assertTrue(replay.count(CacheEvent.Type.CREATED) >= 1);
        assertEquals(replay.count(CacheEvent.Type.CREATED), replay.count(CacheEvent.Type.DELETED) + 1,
                "creations and deletions alternate");
        cache.close();
    }

    /**
     * CURATOR-324: a node deleted, recreated and updated in quick succession gave events out of order. Here the
     * requests are pipelined; whatever reads see, a recreated node is reported DELETED then CREATED, never CHANGED.
     */
    @Test
    void curator324DeleteRecreateAndUpdateInQuickSuccession() {
        String p = path("quick");
        ZkClient observer = client();
        observer.create(p, bytes("old"), CreateMode.PERSISTENT, dev.zkr.client.Parents.CONTAINER);
        Replay replay = new Replay();
        NodeCache cache = cache(client(), p, replay);
        long oldCzxid = cache.current().orElseThrow().stat().czxid();
        List<CompletableFuture<?>> sent = new ArrayList<>();
        sent.add(observer.deleteAsync(p, -1));
        sent.add(observer.createAsync(p, bytes("new"), CreateMode.PERSISTENT));
        sent.add(observer.setDataAsync(p, bytes("newer"), -1));
        sent.forEach(CompletableFuture::join);
        eventually("the copy has the recreated node", () -> sameAsServer(observer, p, cache.current())
                && sameAsServer(observer, p, replay.state()));
        replay.assertConsistent();
        assertTrue(cache.current().orElseThrow().stat().czxid() > oldCzxid);
        int deleted = -1;
        int created = -1;
        synchronized (replay.events) {
            for (int i = 0; i < replay.events.size(); i++) {
                CacheEvent e = replay.events.get(i);
                if (e.type() == CacheEvent.Type.DELETED && deleted < 0) {
                    deleted = i;
                }
                if (e.type() == CacheEvent.Type.CREATED && created < 0) {
                    created = i;
                }
            }
        }
        assertTrue(deleted >= 0 && created > deleted, "DELETED before CREATED: " + replay.events);
        cache.close();
    }

    /** CURATOR-391: changes made while the cache's client was away (here: its session expired) were missed. */
    @Test
    void curator391ChangesMadeWhileAwayAreSeen() {
        String p = path("away");
        ZkClient observer = client();
        observer.create(p, bytes("before"), CreateMode.PERSISTENT, dev.zkr.client.Parents.CONTAINER);
        ZkClient c = client();
        Replay replay = new Replay();
        NodeCache cache = cache(c, p, replay);
        long old = c.sessionId();
        backend.expireSession(c);
        observer.setData(p, bytes("while away"), -1);
        eventually("a new session", () -> c.sessionId() != old && c.state().isConnected());
        eventually("the copy caught up", () -> sameAsServer(observer, p, cache.current()));
        observer.setData(p, bytes("after"), -1); // the new session's watch works
        eventually("and follows again", () -> sameAsServer(observer, p, cache.current())
                && sameAsServer(observer, p, replay.state()));
        replay.assertConsistent();
        cache.close();
        assertNoWatches(c);
    }

    /** CURATOR-296: no signal once re-initialisation after a reconnect completed. Here INITIALIZED comes again. */
    @Test
    void curator296InitializedAgainAfterAReconnect() {
        String p = path("signal");
        ZkClient observer = client(Duration.ofSeconds(30));
        observer.create(p, bytes("x"), CreateMode.PERSISTENT, dev.zkr.client.Parents.CONTAINER);
        Replay replay = new Replay();
        NodeCache cache = cache(client(Duration.ofSeconds(30)), p, replay);
        eventually("initialized once", () -> replay.count(CacheEvent.Type.INITIALIZED) == 1);
        backend.restartServer();
        eventually("initialized again after the reconnect", () -> replay.count(CacheEvent.Type.INITIALIZED) == 2);
        observer.setData(p, bytes("y"), -1);
        eventually("still following", () -> sameAsServer(observer, p, cache.current()));
        replay.assertConsistent();
        cache.close();
    }

    @Test
    void closeRemovesTheWatchAndAStartedCacheCannotStartAgain() {
        ZkClient c = client();
        NodeCache cache = Recipes.using(c).nodeCache(path("closing")).start();
        try {
            cache.start();
            fail("started twice");
        } catch (IllegalStateException expected) {
            // LATENT -> STARTED once
        }
        cache.close();
        cache.close();
        assertNoWatches(c);
    }
}
