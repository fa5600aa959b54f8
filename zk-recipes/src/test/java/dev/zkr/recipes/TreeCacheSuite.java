package dev.zkr.recipes;

import dev.zkr.client.CreateMode;
import dev.zkr.client.NodeData;
import dev.zkr.client.Parents;
import dev.zkr.client.Stat;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * TreeCache: the copy follows the subtree in order and never goes back, resynchronises after reconnects and new
 * sessions (with an INITIALIZED signal), bounds the data it holds (evicted data is re-read, structure and Stats
 * kept), and its events replay to the subtree; one test per Curator cache bug that applies (CURATOR-182/-183, -324,
 * -391, -296).
 */
public abstract class TreeCacheSuite extends RecipeSuite {

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * A listener that checks every event against the tree the previous ones built (CREATED only while absent and
     * under a present parent, CHANGED only forward, DELETED only while present and childless), and replays them.
     */
    static final class Replay {
        final List<CacheEvent> events = Collections.synchronizedList(new ArrayList<>());
        private final Map<String, NodeData> tree = new TreeMap<>();
        private final List<String> errors = Collections.synchronizedList(new ArrayList<>());
        private final String root;

        Replay(String root) {
            this.root = root;
        }

        synchronized void accept(CacheEvent e) {
            events.add(e);
            String p = e.path();
            switch (e.type()) {
                case CREATED -> {
                    if (tree.containsKey(p)) {
                        errors.add("CREATED while present: " + p);
                    }
                    if (!p.equals(root) && !tree.containsKey(TreeState.parentOf(p))) {
                        errors.add("CREATED without its parent: " + p);
                    }
                    tree.put(p, e.data().orElseThrow());
                }
                case CHANGED -> {
                    NodeData before = tree.get(p);
                    NodeData now = e.data().orElseThrow();
                    if (before == null || now.stat().czxid() != before.stat().czxid()
                            || now.stat().mzxid() <= before.stat().mzxid()) {
                        errors.add("CHANGED not forward at " + p + " from " + before + " to " + now);
                    }
                    tree.put(p, now);
                }
                case DELETED -> {
                    if (tree.remove(p) == null) {
                        errors.add("DELETED while absent: " + p);
                    }
                    if (tree.keySet().stream().anyMatch(x -> x.startsWith(p + "/"))) {
                        errors.add("DELETED before its children: " + p);
                    }
                }
                case INITIALIZED -> { }
            }
        }

        synchronized Map<String, NodeData> tree() {
            return new TreeMap<>(tree);
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

    /** The server's subtree at root: path to node (empty if root is absent). */
    static Map<String, NodeData> serverTree(ZkClient observer, String root) {
        Map<String, NodeData> out = new TreeMap<>();
        collect(observer, root, out);
        return out;
    }

    private static void collect(ZkClient observer, String path, Map<String, NodeData> out) {
        try {
            out.put(path, observer.getData(path));
            for (String child : observer.getChildren(path)) {
                collect(observer, TreeState.childPath(path, child), out);
            }
        } catch (ZkException.NoNode gone) {
            // deleted meanwhile: the caller polls again
        }
    }

    /** Same node version and data (the child fields of a Stat are not followed by the cache). */
    static boolean sameNode(NodeData a, NodeData b) {
        Stat x = a.stat();
        Stat y = b.stat();
        return x.czxid() == y.czxid() && x.mzxid() == y.mzxid() && x.version() == y.version()
                && Arrays.equals(a.data(), b.data());
    }

    /** True if the cache (structure, Stats, data through get) equals the server's subtree. */
    static boolean sameAsServer(ZkClient observer, String root, TreeCache cache) {
        Map<String, NodeData> server = serverTree(observer, root);
        if (cache.size() != server.size()) {
            return false;
        }
        for (Map.Entry<String, NodeData> e : server.entrySet()) {
            Optional<NodeData> copy = cache.get(e.getKey());
            Optional<Stat> stat = cache.stat(e.getKey());
            if (copy.isEmpty() || stat.isEmpty() || stat.get().mzxid() != e.getValue().stat().mzxid()
                    || !sameNode(copy.get(), e.getValue())) {
                return false;
            }
            List<String> children = new ArrayList<>();
            server.keySet().stream().filter(p -> !p.equals(e.getKey())
                            && TreeState.parentOf(p).equals(e.getKey()))
                    .forEach(p -> children.add(p.substring(p.lastIndexOf('/') + 1)));
            Collections.sort(children);
            if (!children.equals(cache.children(e.getKey()))) {
                return false;
            }
        }
        return true;
    }

    /** True if the replayed events equal the server's subtree. */
    static boolean replayAsServer(ZkClient observer, String root, Replay replay) {
        Map<String, NodeData> server = serverTree(observer, root);
        Map<String, NodeData> replayed = replay.tree();
        return server.keySet().equals(replayed.keySet())
                && server.keySet().stream().allMatch(p -> sameNode(server.get(p), replayed.get(p)));
    }

    private TreeCache cache(ZkClient c, String path, Replay replay) {
        return cache(c, path, replay, Long.MAX_VALUE);
    }

    private TreeCache cache(ZkClient c, String path, Replay replay, long maxDataBytes) {
        TreeCache cache = Recipes.using(c).treeCache(path).maxDataBytes(maxDataBytes).build();
        cache.addListener(replay::accept);
        return cache.start();
    }

    private void converged(ZkClient observer, String root, TreeCache cache, Replay replay) {
        eventually("the copy equals the server's subtree", () -> sameAsServer(observer, root, cache));
        eventually("the replay equals the server's subtree", () -> replayAsServer(observer, root, replay));
        replay.assertConsistent();
    }

    @Test
    void startLoadsTheSubtreeAndSignalsInitializedLast() {
        String r = path("services");
        ZkClient observer = client();
        observer.create(r + "/a/x", bytes("ax"), CreateMode.PERSISTENT, Parents.PERSISTENT);
        observer.create(r + "/b", bytes("b"), CreateMode.PERSISTENT, Parents.PERSISTENT);
        Replay replay = new Replay(r);
        TreeCache cache = cache(client(), r, replay);
        assertEquals(List.of("a", "b"), cache.children(r));
        assertEquals("ax", new String(cache.get(r + "/a/x").orElseThrow().data(), StandardCharsets.UTF_8));
        assertTrue(sameAsServer(observer, r, cache));
        eventually("INITIALIZED", () -> replay.count(CacheEvent.Type.INITIALIZED) == 1);
        assertEquals(4, replay.count(CacheEvent.Type.CREATED), "one CREATED per node: " + replay.events);
        assertEquals(CacheEvent.Type.INITIALIZED, replay.events.get(replay.events.size() - 1).type());
        assertTrue(replayAsServer(observer, r, replay));
        replay.assertConsistent();
        assertThrows(IllegalArgumentException.class, () -> cache.get(path("elsewhere")));
        cache.close();
    }

    @Test
    void followsCreatesChangesAndDeletesAtEveryDepth() {
        String r = path("services");
        ZkClient observer = client();
        ZkClient c = client();
        Replay replay = new Replay(r);
        TreeCache cache = cache(c, r, replay);
        assertEquals(0, cache.size());
        observer.create(r, bytes("root"), CreateMode.PERSISTENT, Parents.PERSISTENT);
        for (int i = 0; i < 5; i++) {
            observer.create(r + "/s" + i, bytes("s" + i), CreateMode.PERSISTENT);
            observer.create(r + "/s" + i + "/n", bytes("n" + i), CreateMode.EPHEMERAL);
        }
        for (int i = 0; i < 10; i++) {
            observer.setData(r + "/s" + (i % 5), bytes("v" + i), -1);
        }
        converged(observer, r, cache, replay);
        observer.delete(r + "/s1/n", -1);
        observer.delete(r + "/s1", -1);
        observer.setData(r, bytes("root2"), -1);
        converged(observer, r, cache, replay);
        assertEquals(List.of("s0", "s2", "s3", "s4"), cache.children(r));
        cache.close();
        assertNoWatches(c);
    }

    /**
     * A deletion is applied as the event reports it, without a read (a creation or change costs one getData), and in
     * order with the reads in flight: nodes deleted, made again and changed in one pipeline end as on the server.
     */
    @Test
    void deletionsCostNoReadAndStayInOrderWithTheReads() {
        String r = path("deletes");
        ZkClient observer = client();
        for (int i = 0; i < 20; i++) {
            observer.create(r + "/n" + i, bytes("n" + i), CreateMode.PERSISTENT, Parents.PERSISTENT);
        }
        CountingClient counting = new CountingClient(client());
        Replay replay = new Replay(r);
        TreeCache cache = cache(counting, r, replay);
        long reads = counting.count(CountingClient.Kind.GET_DATA);
        List<CompletableFuture<?>> sent = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            sent.add(observer.deleteAsync(r + "/n" + i, -1));
        }
        sent.forEach(CompletableFuture::join);
        converged(observer, r, cache, replay);
        eventually("20 deletions reported", () -> replay.count(CacheEvent.Type.DELETED) == 20);
        assertEquals(reads, counting.count(CountingClient.Kind.GET_DATA), "a deletion costs no read");
        sent.clear();
        for (int i = 0; i < 10; i++) {
            String p = r + "/m" + (i % 3);
            sent.add(observer.createAsync(p, bytes("m" + i), CreateMode.PERSISTENT));
            sent.add(observer.setDataAsync(p, bytes("m" + i + "'"), -1));
            if (i < 9) {
                sent.add(observer.deleteAsync(p, -1));
            }
        }
        sent.forEach(f -> f.exceptionally(x -> null).join());
        converged(observer, r, cache, replay);
        cache.close();
        assertNoWatches(counting);
    }

    /** CURATOR-182/-183: repeated creation and removal of the root gave wrong or missing events. */
    @Test
    void curator182And183RepeatedAddAndRemoveOfTheRoot() {
        String r = path("flap");
        ZkClient observer = client();
        observer.create(path("parent"), new byte[0], CreateMode.PERSISTENT, Parents.PERSISTENT);
        Replay replay = new Replay(r);
        TreeCache cache = cache(client(), r, replay);
        for (int i = 0; i < 15; i++) {
            observer.create(r, bytes("round " + i), CreateMode.PERSISTENT);
            observer.create(r + "/child", bytes("c" + i), CreateMode.PERSISTENT);
            observer.delete(r + "/child", -1);
            observer.delete(r, -1);
        }
        observer.create(r, bytes("last"), CreateMode.PERSISTENT);
        observer.create(r + "/child", bytes("last child"), CreateMode.PERSISTENT);
        converged(observer, r, cache, replay);
        long rootCreated;
        long rootDeleted;
        synchronized (replay.events) {
            rootCreated = replay.events.stream()
                    .filter(e -> e.path().equals(r) && e.type() == CacheEvent.Type.CREATED).count();
            rootDeleted = replay.events.stream()
                    .filter(e -> e.path().equals(r) && e.type() == CacheEvent.Type.DELETED).count();
        }
        assertTrue(rootCreated >= 1);
        assertEquals(rootCreated, rootDeleted + 1, "creations and deletions of the root alternate");
        cache.close();
    }

    /**
     * CURATOR-324: a node deleted, recreated and updated in quick succession gave events out of order. Here the
     * requests are pipelined; whatever reads see, the recreated node is reported DELETED then CREATED, never CHANGED.
     */
    @Test
    void curator324DeleteRecreateAndUpdateInQuickSuccession() {
        String r = path("quick");
        String p = r + "/node";
        ZkClient observer = client();
        observer.create(p, bytes("old"), CreateMode.PERSISTENT, Parents.PERSISTENT);
        Replay replay = new Replay(r);
        TreeCache cache = cache(client(), r, replay);
        long oldCzxid = cache.stat(p).orElseThrow().czxid();
        List<CompletableFuture<?>> sent = new ArrayList<>();
        sent.add(observer.deleteAsync(p, -1));
        sent.add(observer.createAsync(p, bytes("new"), CreateMode.PERSISTENT));
        sent.add(observer.setDataAsync(p, bytes("newer"), -1));
        sent.forEach(CompletableFuture::join);
        converged(observer, r, cache, replay);
        assertTrue(cache.stat(p).orElseThrow().czxid() > oldCzxid);
        List<CacheEvent.Type> after;
        synchronized (replay.events) {
            after = replay.events.stream().filter(e -> e.path().equals(p)).map(CacheEvent::type).toList();
        }
        int deleted = after.indexOf(CacheEvent.Type.DELETED);
        assertTrue(deleted > 0 && after.subList(deleted, after.size()).contains(CacheEvent.Type.CREATED),
                "DELETED then CREATED: " + after);
        cache.close();
    }

    /** CURATOR-391: children added, removed and changed while the cache's client was away (session expired). */
    @Test
    void curator391ChangesMadeWhileAwayAreSeen() {
        String r = path("away");
        ZkClient observer = client();
        observer.create(r + "/stays", bytes("1"), CreateMode.PERSISTENT, Parents.PERSISTENT);
        observer.create(r + "/goes/deep", bytes("2"), CreateMode.PERSISTENT, Parents.PERSISTENT);
        ZkClient c = client();
        Replay replay = new Replay(r);
        TreeCache cache = cache(c, r, replay);
        long old = c.sessionId();
        backend.expireSession(c);
        observer.setData(r + "/stays", bytes("changed while away"), -1);
        observer.delete(r + "/goes/deep", -1);
        observer.delete(r + "/goes", -1);
        observer.create(r + "/new/deep", bytes("3"), CreateMode.PERSISTENT, Parents.PERSISTENT);
        eventually("a new session", () -> c.sessionId() != old && c.state().isConnected());
        converged(observer, r, cache, replay);
        observer.create(r + "/after", bytes("4"), CreateMode.PERSISTENT); // the new session's watch works
        converged(observer, r, cache, replay);
        assertEquals(List.of("after", "new", "stays"), cache.children(r));
        cache.close();
        assertNoWatches(c);
    }

    /** CURATOR-296: no signal once re-initialisation after a reconnect completed. Here INITIALIZED comes again. */
    @Test
    void curator296InitializedAgainAfterAReconnect() {
        String r = path("signal");
        ZkClient observer = client(Duration.ofSeconds(30));
        observer.create(r + "/x", bytes("x"), CreateMode.PERSISTENT, Parents.PERSISTENT);
        Replay replay = new Replay(r);
        TreeCache cache = cache(client(Duration.ofSeconds(30)), r, replay);
        eventually("initialized once", () -> replay.count(CacheEvent.Type.INITIALIZED) == 1);
        backend.restartServer();
        eventually("initialized again after the reconnect", () -> replay.count(CacheEvent.Type.INITIALIZED) == 2);
        observer.setData(r + "/x", bytes("y"), -1);
        observer.create(r + "/y", bytes("y"), CreateMode.PERSISTENT);
        converged(observer, r, cache, replay);
        assertEquals(3, replay.count(CacheEvent.Type.CREATED), "root, x, y, each once: " + replay.events);
        cache.close();
    }

    /** Data beyond maxDataBytes is evicted and re-read on get; the structure and every Stat stay. */
    @Test
    void evictedDataIsReadAgainAndTheStructureStays() {
        String r = path("big");
        ZkClient observer = client();
        byte[] hundred = new byte[100];
        for (int i = 0; i < 40; i++) {
            Arrays.fill(hundred, (byte) i);
            observer.create(r + "/n" + i, hundred, CreateMode.PERSISTENT, Parents.PERSISTENT);
        }
        CountingClient counting = new CountingClient(client());
        Replay replay = new Replay(r);
        TreeCache cache = cache(counting, r, replay, 1000);
        assertTrue(cache.dataBytes() <= 1000, "holds " + cache.dataBytes() + " bytes");
        assertEquals(41, cache.size());
        assertEquals(40, cache.children(r).size());
        for (int i = 0; i < 40; i++) {
            assertEquals(100, cache.stat(r + "/n" + i).orElseThrow().dataLength(), "the Stat stays");
        }
        long readsBefore = counting.count(CountingClient.Kind.GET_DATA);
        for (int i = 0; i < 40; i++) {
            byte[] got = cache.get(r + "/n" + i).orElseThrow().data();
            assertEquals(100, got.length);
            assertTrue(got[0] == i && got[99] == i, "the data of n" + i);
        }
        assertTrue(counting.count(CountingClient.Kind.GET_DATA) - readsBefore >= 30, "evicted data was read again");
        assertTrue(cache.dataBytes() <= 1000, "holds " + cache.dataBytes() + " bytes");
        observer.setData(r + "/n7", bytes("seven"), -1);
        eventually("the change is seen", () -> cache.stat(r + "/n7").orElseThrow().version() == 1);
        assertEquals("seven", new String(cache.get(r + "/n7").orElseThrow().data(), StandardCharsets.UTF_8));
        converged(observer, r, cache, replay);
        cache.close();
        assertNoWatches(counting);
    }

    @Test
    void closeRemovesTheWatchAndAStartedCacheCannotStartAgain() {
        ZkClient c = client();
        TreeCache cache = Recipes.using(c).treeCache(path("closing")).start();
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
