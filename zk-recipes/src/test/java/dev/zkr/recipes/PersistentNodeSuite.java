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
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * PersistentNode: kept present with its latest data across deletion, expiry, restarts and lost responses, never two
 * copies, never someone else's node taken or a parent deleted; one test per Curator PersistentNode bug (named).
 */
public abstract class PersistentNodeSuite extends RecipeSuite {

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** True if the node at path exists with exactly this data, owned by this session (0: persistent). */
    private static boolean holds(ZkClient observer, String path, String data, long owner) {
        try {
            observer.sync(path);
            NodeData d = observer.getData(path);
            return Arrays.equals(d.data(), b(data)) && d.stat().ephemeralOwner() == owner;
        } catch (ZkException.NoNode | ZkException.ConnectionLoss e) {
            return false; // not there, or the observer not reconnected yet: look again
        }
    }

    @Test
    void anEphemeralNodeDeletedByOthersComesBack() {
        String p = path("kept");
        ZkClient c = client();
        ZkClient observer = client();
        PersistentNode node = Recipes.using(c).persistentNode(p).data(b("v1")).start();
        assertTrue(node.await(WAIT));
        assertTrue(holds(observer, p, "v1", c.sessionId()));
        for (int i = 0; i < 3; i++) {
            long before = observer.exists(p).czxid();
            observer.delete(p, -1);
            eventually("made again", () -> {
                Stat s = observer.exists(p);
                return s != null && s.czxid() > before;
            });
        }
        assertTrue(holds(observer, p, "v1", c.sessionId()));
        node.close();
        eventually("deleted on close", () -> observer.exists(p) == null);
        assertNoWatches(c);
    }

    /**
     * A fixed-name node is created from start() itself, without a read first (the common case: nobody made it): the
     * keeper's reads are the read-back with its watch only. A node closed before any reconcile ran (the executor
     * has not run a task yet) is deleted once that create answers.
     */
    @Test
    void startCreatesAtOnceWithoutAReadFirstAndCloseDeletesThatCreate() {
        String p = path("first");
        CountingClient c = new CountingClient(client());
        ZkClient observer = client();
        observer.create(dev.zkr.client.ZkPaths.parent(p), new byte[0], CreateMode.PERSISTENT, Parents.PERSISTENT);
        PersistentNode node = Recipes.using(c).persistentNode(p).data(b("v1")).start();
        assertEquals(1, c.count(CountingClient.Kind.CREATE), "the create is sent by start()");
        assertTrue(node.await(WAIT));
        assertTrue(holds(observer, p, "v1", c.sessionId()));
        assertEquals(1, c.count(CountingClient.Kind.GET_DATA), "one read: the read-back with its watch");
        assertEquals(1, c.count(CountingClient.Kind.CREATE));
        node.close();
        assertEquals(null, observer.exists(p));

        String q = path("closedAtOnce");
        java.util.concurrent.LinkedBlockingQueue<Runnable> held = new java.util.concurrent.LinkedBlockingQueue<>();
        ZkClient d = client();
        PersistentNode early = Recipes.using(d, held::add).persistentNode(q).data(b("v1")).start();
        early.close(); // no reconcile has run: the create start() sent is the only thing in flight
        assertEquals(null, observer.exists(q), "the node the first create made is deleted by close");
        held.forEach(Runnable::run); // the reconcile that close overtook does nothing
        assertEquals(null, observer.exists(q));
        assertNoWatches(d);
    }

    @Test
    void sessionExpiryMakesItAgainWithTheLatestData() {
        String p = path("expiry");
        ZkClient c = client();
        ZkClient observer = client();
        PersistentNode node = Recipes.using(c).persistentNode(p).data(b("v1")).start();
        assertTrue(node.await(WAIT));
        node.setData(b("v2"));
        eventually("v2 written", () -> holds(observer, p, "v2", c.sessionId()));
        long old = c.sessionId();
        backend.expireSession(c);
        eventually("made again by the new session with v2 (not the initial v1: CURATOR-241)",
                () -> c.sessionId() != old && holds(observer, p, "v2", c.sessionId()));
        node.close();
    }

    /** CURATOR-154: data set while disconnected is written once the same session is back (not left at the old). */
    @Test
    void dataSetWhileDisconnectedIsWrittenOnReconnect_CURATOR_154() {
        String p = path("curator-154");
        ZkClient c = client(Duration.ofSeconds(30));
        ZkClient observer = client(Duration.ofSeconds(30));
        PersistentNode node = Recipes.using(c).persistentNode(p).data(b("v1")).start();
        assertTrue(node.await(WAIT));
        long session = c.sessionId();
        backend.stopServer();
        try {
            eventually("disconnected", () -> !c.state().isConnected());
            node.setData(b("v2"));
            assertFalse(node.isPresent());
        } finally {
            backend.startServer();
        }
        eventually("v2 there, same session", () -> c.sessionId() == session && holds(observer, p, "v2", session));
        assertTrue(node.await(WAIT));
        node.close();
    }

    /** CURATOR-241: a reconnect (same session) must not write the initial data over data set since. */
    @Test
    void aReconnectKeepsTheDataSetSince_CURATOR_241() {
        String p = path("curator-241");
        ZkClient c = client(Duration.ofSeconds(30));
        ZkClient observer = client(Duration.ofSeconds(30));
        PersistentNode node = Recipes.using(c).persistentNode(p).data(b("initial")).start();
        assertTrue(node.await(WAIT));
        node.setData(b("later"));
        eventually("later written", () -> holds(observer, p, "later", c.sessionId()));
        backend.restartServer();
        eventually("reconnected", () -> c.state().isConnected());
        assertTrue(node.await(WAIT));
        eventually("later, still", () -> holds(observer, p, "later", c.sessionId()));
        node.close();
    }

    /**
     * CURATOR-155 and CURATOR-483: a sequential node's data goes to its actual (sequential) path, and a reconnect
     * or a lost create response never makes a second copy.
     */
    @Test
    void aSequentialNodeHasOneCopyAndTakesItsData_CURATOR_155_CURATOR_483() {
        String p = path("seq");
        ZkClient observer = client(Duration.ofSeconds(30));
        // the parent exists, so the create whose response is lost is really applied (a create that first fails
        // NoNode for a missing parent would lose nothing)
        observer.create(p, new byte[0], CreateMode.PERSISTENT, Parents.PERSISTENT);
        LostResponseClient flaky = new LostResponseClient(client(Duration.ofSeconds(30)))
                .loseCreates(1, x -> x.contains("/_c_"));
        PersistentNode node = Recipes.using(flaky).persistentNode(p + "/member-").mode(CreateMode.EPHEMERAL_SEQUENTIAL)
                .data(b("a")).start();
        assertTrue(node.await(WAIT));
        assertEquals(1, flaky.lost(), "the first create's response was lost");
        assertEquals(1, children(observer, p).size(), "one copy");
        String actual = node.actualPath().orElseThrow();
        node.setData(b("b"));
        eventually("b at the actual path", () -> holds(observer, actual, "b", flaky.sessionId()));
        backend.restartServer();
        eventually("reconnected", () -> flaky.state().isConnected());
        assertTrue(node.await(WAIT));
        eventually("still the one copy after the reconnect", () -> {
            try {
                return List.of(actual.substring(actual.lastIndexOf('/') + 1)).equals(children(observer, p));
            } catch (ZkException.ConnectionLoss e) {
                return false;
            }
        });
        node.close();
        eventually("gone", () -> children(observer, p).isEmpty());
        observer.delete(p, -1);
    }

    /** CURATOR-53: started while the server is down, the node is made once it is up. */
    @Test
    void startedWhileTheServerIsDownItIsMadeOnceUp_CURATOR_53() {
        String p = path("curator-53");
        ZkClient c = client(Duration.ofSeconds(30));
        ZkClient observer = client(Duration.ofSeconds(30));
        PersistentNode node;
        backend.stopServer();
        try {
            eventually("disconnected", () -> !c.state().isConnected());
            node = Recipes.using(c).persistentNode(p).data(b("v")).start();
            assertFalse(node.isPresent());
        } finally {
            backend.startServer();
        }
        assertTrue(node.await(WAIT));
        assertTrue(holds(observer, p, "v", c.sessionId()));
        node.close();
    }

    /** CURATOR-506: close deletes the node and never its parent. */
    @Test
    void closeDeletesOnlyTheNode_CURATOR_506() {
        String parent = path("level1/level2");
        ZkClient c = client();
        ZkClient observer = client();
        observer.create(parent, new byte[0], CreateMode.PERSISTENT, Parents.PERSISTENT);
        PersistentNode node = Recipes.using(c).persistentNode(parent + "/level3").data(b("x")).start();
        assertTrue(node.await(WAIT));
        node.close();
        node.close(); // idempotent
        eventually("the node is gone", () -> observer.exists(parent + "/level3") == null);
        assertNotNull(observer.exists(parent), "the parent stays");
    }

    /** Another session's ephemeral node of the same name is neither deleted nor taken over; ours follows it. */
    @Test
    void anotherSessionsNodeIsLeftAloneAndFollowed() {
        String p = path("taken");
        ZkClient other = client();
        ZkClient c = client();
        ZkClient observer = client();
        other.create(p, b("theirs"), CreateMode.EPHEMERAL, Parents.CONTAINER);
        PersistentNode node = Recipes.using(c).persistentNode(p).data(b("ours")).start();
        assertFalse(node.await(Duration.ofMillis(300)));
        assertTrue(holds(observer, p, "theirs", other.sessionId()), "theirs, untouched");
        other.close();
        assertTrue(node.await(WAIT));
        assertTrue(holds(observer, p, "ours", c.sessionId()));
        node.close();
        assertNoWatches(c);
    }

    /** CURATOR-97: a node deleted while the connection is down (its watch gone with it) is made again. */
    @Test
    void aNodeDeletedAcrossAnOutageComesBack_CURATOR_97() {
        String p = path("curator-97");
        ZkClient c = client(Duration.ofSeconds(30));
        ZkClient observer = client(Duration.ofSeconds(30));
        PersistentNode node = Recipes.using(c).persistentNode(p).mode(CreateMode.PERSISTENT).data(b("p")).start();
        assertTrue(node.await(WAIT));
        backend.restartServer();
        eventually("deleted by the observer once it is back", () -> {
            try {
                observer.delete(p, -1);
                return true;
            } catch (ZkException.ConnectionLoss e) {
                return false;
            }
        });
        eventually("made again", () -> holds(observer, p, "p", 0));
        node.close();
        eventually("deleted on close", () -> observer.exists(p) == null);
    }
    // ---- the TTL variant (Curator's PersistentTtlNode) ----------------------------------------------------------

    private static final Duration TTL = Duration.ofMillis(300);

    /** The touch child's Stat, or null while it is not there (or the observer is reconnecting). */
    private static Stat touchOf(ZkClient observer, String p) {
        try {
            observer.sync(p);
            return observer.exists(p + "/touch");
        } catch (ZkException.ConnectionLoss e) {
            return null;
        }
    }

    /**
     * The node lives on while its keeper renews the touch child (its TTL restarted every half TTL, the node's own
     * data and version untouched), and once the keeper's process is gone it is deleted no earlier than a TTL after
     * the last renewal, on the server's clock.
     */
    @Test
    void aTtlNodeOutlivesItsKeeperByItsTtl() {
        String p = path("ttl");
        ZkClient c = client();
        ZkClient observer = client();
        PersistentNode node = Recipes.using(c).persistentNode(p).data(b("t")).ttl(TTL).start();
        assertTrue(node.await(WAIT));
        Stat first = observer.exists(p);
        eventually("renewed three times", () -> {
            Stat t = touchOf(observer, p);
            return t != null && t.version() >= 3;
        });
        Stat kept = observer.exists(p);
        assertNotNull(kept, "kept past its TTL while renewed");
        assertEquals(first.version(), kept.version(), "renewals leave the node's own data alone");
        assertTrue(holds(observer, p, "t", 0));
        backend.crash(c); // the keeper's process is gone: no more renewals, no close
        Stat last = touchOf(observer, p);
        eventually("deleted once the TTL ran out", () -> {
            try {
                observer.sync(p);
                return observer.exists(p) == null;
            } catch (ZkException.ConnectionLoss e) {
                return false;
            }
        });
        String probe = observer.create(path("probe"), new byte[0], CreateMode.PERSISTENT, Parents.CONTAINER);
        long gone = observer.exists(probe).ctime();
        assertTrue(last == null || gone - last.mtime() > TTL.toMillis(), "deleted " + (gone - last.mtime())
                + " ms after the last renewal, TTL " + TTL.toMillis() + " ms");
    }

    /** CURATOR-545 (and CURATOR-636, Curator #1258): the node and its touch child are made in one multi. */
    @Test
    void theNodeNeverExistsWithoutItsTouchChild_CURATOR_545() {
        String p = path("curator-545");
        ZkClient c = client();
        ZkClient observer = client();
        PersistentNode node = Recipes.using(c).persistentNode(p).ttl(TTL).start();
        assertTrue(node.await(WAIT));
        Stat container = observer.exists(p);
        Stat touch = observer.exists(p + "/touch");
        assertNotNull(touch, "the touch child is there as soon as the node is");
        assertEquals(container.czxid(), touch.czxid(), "created by the same txn");
        // a touch child deleted by someone: made again, by the next renewal or with the node if the server removed
        // the container meanwhile
        observer.delete(p + "/touch", -1);
        eventually("the touch child made again", () -> {
            Stat t = touchOf(observer, p);
            return t != null && t.czxid() > touch.czxid();
        });
        node.close();
        eventually("the touch child and the node deleted on close", () -> observer.exists(p) == null);
    }

    @Test
    void aTtlNodeTakesNoModeAndAValidTtl() {
        Recipes recipes = Recipes.using(client());
        assertThrows(IllegalStateException.class, () -> recipes.persistentNode(path("x")).mode(CreateMode.PERSISTENT)
                .ttl(TTL).start());
        assertThrows(IllegalArgumentException.class, () -> recipes.persistentNode(path("x")).ttl(Duration.ZERO));
    }
}
