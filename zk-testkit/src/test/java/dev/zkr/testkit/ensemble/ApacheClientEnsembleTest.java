package dev.zkr.testkit.ensemble;

import dev.zkr.testkit.TestEnsemble;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ConnectStringParser;
import org.apache.zookeeper.client.StaticHostProvider;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static dev.zkr.testkit.ensemble.Ensembles.await;
import static dev.zkr.testkit.ensemble.Ensembles.others;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The real Apache ZooKeeper 3.9.3 client against a 3-server zkr ensemble on loopback: a session moves to another
 * member when its server dies, and is resumed by id and password on another member, with its ephemerals and
 * watches; a session's requests through a follower keep their order across the forwarding to the leader; a
 * read-only-capable client gets no session from a member without a quorum, and a read-write one once there is one.
 */
@Timeout(180)
class ApacheClientEnsembleTest {

    private static final List<org.apache.zookeeper.data.ACL> OPEN = ZooDefs.Ids.OPEN_ACL_UNSAFE;

    /** Node events and connection states a client's default watcher sees. */
    private static final class Events implements Watcher {
        final BlockingQueue<WatchedEvent> nodes = new LinkedBlockingQueue<>();
        final List<Event.KeeperState> states = new CopyOnWriteArrayList<>();

        @Override
        public void process(WatchedEvent e) {
            if (e.getType() == Event.EventType.None) {
                states.add(e.getState());
            } else {
                nodes.add(e);
            }
        }

        WatchedEvent next() throws InterruptedException {
            WatchedEvent e = nodes.poll(Ensembles.PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
            assertNotNull(e, "no watch event");
            return e;
        }
    }

    private static ZKClientConfig config() {
        ZKClientConfig c = new ZKClientConfig();
        c.setProperty(ZKClientConfig.ENABLE_CLIENT_SASL_KEY, "false");
        return c;
    }

    private static ZooKeeper connect(String connect, Events events) throws IOException {
        ZooKeeper zk = new ZooKeeper(connect, 10_000, events, false, config());
        await("connected to " + connect, () -> zk.getState() == ZooKeeper.States.CONNECTED);
        return zk;
    }

    private static String all(TestEnsemble e) {
        List<String> hosts = new ArrayList<>();
        for (int i = 0; i < e.size(); i++) {
            hosts.add(e.connectString(i));
        }
        return String.join(",", hosts);
    }

    /** The index of the member that created (and so serves first) the client's session: its id's high byte. */
    private static int creator(ZooKeeper zk) {
        return (int) (zk.getSessionId() >>> 56) - 1;
    }

    @Test
    void aSessionMovesToAnotherMemberWithItsEphemeralsAndWatches() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).start()) {
            Ensembles.settledLeader(e);
            Events events = new Events();
            ZooKeeper zk = connect(all(e), events);
            ZooKeeper other = null;
            try {
                long session = zk.getSessionId();
                int victim = creator(zk);
                zk.create("/watched", new byte[] {0}, OPEN, CreateMode.PERSISTENT);
                zk.create("/dir", new byte[0], OPEN, CreateMode.PERSISTENT);
                zk.create("/eph", new byte[0], OPEN, CreateMode.EPHEMERAL);
                zk.getData("/watched", true, null);
                zk.getChildren("/dir", true);

                int[] rest = others(3, victim);
                other = connect(e.connectString(rest[0]) + "," + e.connectString(rest[1]), new Events());
                ZooKeeper o = other;
                e.kill(victim);
                retryingLoss(() -> o.create("/dir/child", new byte[0], OPEN, CreateMode.PERSISTENT));
                retryingLoss(() -> o.setData("/watched", new byte[] {1}, -1));

                List<WatchedEvent> seen = List.of(events.next(), events.next());
                assertTrue(seen.stream().anyMatch(ev -> ev.getType() == Watcher.Event.EventType.NodeDataChanged
                        && ev.getPath().equals("/watched")), "events " + seen);
                assertTrue(seen.stream().anyMatch(ev -> ev.getType() == Watcher.Event.EventType.NodeChildrenChanged
                        && ev.getPath().equals("/dir")), "events " + seen);
                await("reconnected", () -> zk.getState() == ZooKeeper.States.CONNECTED);
                assertEquals(session, zk.getSessionId());
                assertEquals(session, zk.exists("/eph", false).getEphemeralOwner());
                assertEquals(session, other.exists("/eph", false).getEphemeralOwner());
                assertFalse(events.states.contains(Watcher.Event.KeeperState.Expired), "states " + events.states);
                zk.setData("/watched", new byte[] {2}, -1); // the session writes through its new server
            } finally {
                zk.close(5_000);
                if (other != null) {
                    other.close(5_000);
                }
            }
        }
    }

    @Test
    void aSessionIsResumedByIdAndPasswordOnAnotherMember() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).start()) {
            Ensembles.settledLeader(e);
            ZooKeeper first = connect(e.connectString(0), new Events());
            ZooKeeper second = null;
            try {
                first.create("/eph", new byte[] {7}, OPEN, CreateMode.EPHEMERAL);
                Events events = new Events();
                second = new ZooKeeper(e.connectString(2), 10_000, events, first.getSessionId(),
                        first.getSessionPasswd(), false,
                        new StaticHostProvider(new ConnectStringParser(e.connectString(2)).getServerAddresses()),
                        config());
                ZooKeeper resumed = second;
                await("resumed on server 2", () -> resumed.getState() == ZooKeeper.States.CONNECTED);
                assertEquals(first.getSessionId(), resumed.getSessionId());
                Stat stat = resumed.exists("/eph", true);
                assertEquals(first.getSessionId(), stat.getEphemeralOwner());
                ZooKeeper third = connect(e.connectString(1), new Events());
                try {
                    third.setData("/eph", new byte[] {8}, -1);
                } finally {
                    third.close(5_000);
                }
                WatchedEvent changed = events.next();
                assertEquals(Watcher.Event.EventType.NodeDataChanged, changed.getType());
                assertEquals("/eph", changed.getPath());
            } finally {
                if (second != null) {
                    second.close(5_000);
                }
                first.close(5_000);
            }
        }
    }

    @Test
    void aSessionsRequestsThroughAFollowerKeepTheirOrder() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).start()) {
            int leader = Ensembles.settledLeader(e);
            int follower = others(3, leader)[0];
            ZooKeeper zk = connect(e.connectString(follower), new Events());
            try {
                zk.create("/fifo", new byte[4], OPEN, CreateMode.PERSISTENT);
                int n = 300;
                List<String> order = new CopyOnWriteArrayList<>();
                List<String> problems = new CopyOnWriteArrayList<>();
                CountDownLatch done = new CountDownLatch(2 * n);
                for (int i = 0; i < n; i++) {
                    int k = i;
                    // a forwarded write, then a local read that must see it (read-your-writes, in order)
                    zk.setData("/fifo", ByteBuffer.allocate(4).putInt(k).array(), k, (rc, path, ctx, stat) -> {
                        order.add("w" + k);
                        if (rc != 0 || stat.getVersion() != k + 1) {
                            problems.add("setData " + k + ": rc " + rc);
                        }
                        done.countDown();
                    }, null);
                    zk.getData("/fifo", false, (AsyncCallback.DataCallback) (rc, path, ctx, data, stat) -> {
                        order.add("r" + k);
                        if (rc != 0 || ByteBuffer.wrap(data).getInt() != k || stat.getVersion() != k + 1) {
                            problems.add("getData after write " + k + ": rc " + rc + ", version "
                                    + (stat == null ? "-" : stat.getVersion()));
                        }
                        done.countDown();
                    }, null);
                }
                assertTrue(done.await(Ensembles.PATIENCE.toMillis(), TimeUnit.MILLISECONDS), "not all answered");
                assertEquals(List.of(), problems);
                List<String> expected = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    expected.add("w" + i);
                    expected.add("r" + i);
                }
                assertEquals(expected, order);
                assertArrayEquals(ByteBuffer.allocate(4).putInt(n - 1).array(), zk.getData("/fifo", false, null));
            } finally {
                zk.close(5_000);
            }
        }
    }

    @Test
    void aReadOnlyCapableClientGetsNoSessionWithoutAQuorumAndAReadWriteOneOnceThereIsOne() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).start()) {
            int leader = Ensembles.settledLeader(e);
            int[] followers = others(3, leader);
            e.kill(leader);
            e.kill(followers[1]); // followers[0] is alone: no quorum
            Events events = new Events();
            ZooKeeper zk = new ZooKeeper(e.connectString(followers[0]) + "," + e.connectString(followers[1]), 10_000,
                    events, true, config());
            try {
                // zkr is never read-only (as ZooKeeper with readonlymode.enabled=false, its default): the lone member
                // holds the handshake, then closes it, and the client keeps trying
                e.restart(followers[1]);
                await("connected once a quorum is back", () -> zk.getState() == ZooKeeper.States.CONNECTED);
                zk.create("/rw", new byte[0], OPEN, CreateMode.PERSISTENT); // a read-write session
                assertFalse(events.states.contains(Watcher.Event.KeeperState.ConnectedReadOnly),
                        "states " + events.states);
            } finally {
                zk.close(5_000);
            }
        }
    }

    /**
     * A session of ZooKeeper's client moves to a member that was partitioned while the client wrote a backlog through
     * its first server (killed as the partition heals): the session is kept and its first read there returns what it
     * wrote, never an older value. The client's lastZxidSeen travels in its ConnectRequest (pinned by
     * {@code HandshakeTest} in zk-server, which catches a translation that drops it) and the member holds the
     * session until it has applied that zxid, as {@code ReadsNeverGoBackTest} shows for zkr's own client; with
     * ZooKeeper's client, which waits up to a second before it reconnects, the member has usually caught up first.
     */
    @Test
    void aSessionMovingToAMemberThatWasBehindReadsWhatItWrote() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(5).start()) {
            int[] followers = others(5, Ensembles.settledLeader(e));
            int first = followers[0];
            int lagging = followers[1];
            List<java.net.InetSocketAddress> order = new ConnectStringParser(e.connectString(first) + ","
                    + e.connectString(lagging)).getServerAddresses();
            Events events = new Events();
            ZooKeeper zk = new ZooKeeper(e.connectString(first), 10_000, events, false, inOrder(order), config());
            try {
                await("connected to the first server", () -> zk.getState() == ZooKeeper.States.CONNECTED);
                long session = zk.getSessionId();
                zk.create("/k", new byte[] {0}, OPEN, CreateMode.PERSISTENT);
                e.isolate(lagging);
                CountDownLatch backlog = new CountDownLatch(500);
                for (int i = 0; i < 500; i++) {
                    zk.create("/k/n-", new byte[0], OPEN, CreateMode.PERSISTENT_SEQUENTIAL,
                            (rc, path, ctx, name) -> backlog.countDown(), null);
                }
                assertTrue(backlog.await(60, TimeUnit.SECONDS), "backlog written");
                Stat written = zk.setData("/k", new byte[] {1}, -1);
                assertTrue(e.server(lagging).lastZxid() < written.getMzxid(), "the partitioned member is not behind");

                e.kill(first); // the client knows two members: it can only move to the lagging one
                await("disconnected", () -> events.states.contains(Watcher.Event.KeeperState.Disconnected));
                e.heal();
                await("reconnected", () -> zk.getState() == ZooKeeper.States.CONNECTED
                        && events.states.lastIndexOf(Watcher.Event.KeeperState.SyncConnected)
                        > events.states.lastIndexOf(Watcher.Event.KeeperState.Disconnected));
                // ZooKeeper's client fails what was in flight with ConnectionLoss (it does not re-send): read now
                Stat seen = new Stat();
                byte[] data = retryingRead(() -> zk.getData("/k", false, seen));
                assertArrayEquals(new byte[] {1}, data, "read back in time after moving");
                assertTrue(seen.getMzxid() >= written.getMzxid(), Long.toHexString(seen.getMzxid()));
                assertEquals(500, zk.getChildren("/k", false).size());
                assertEquals(session, zk.getSessionId());
                assertFalse(events.states.contains(Watcher.Event.KeeperState.Expired), "states " + events.states);
            } finally {
                zk.close(5_000);
            }
        }
    }

    private interface Read {
        byte[] run() throws Exception;
    }

    /** A read, retried on ConnectionLoss (a reconnect in progress). */
    private static byte[] retryingRead(Read read) throws Exception {
        long deadline = System.nanoTime() + Ensembles.PATIENCE.toNanos();
        while (true) {
            try {
                return read.run();
            } catch (KeeperException.ConnectionLossException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
            }
        }
    }

    /** A host provider that tries the addresses in the order given (ZooKeeper's shuffles them). */
    private static org.apache.zookeeper.client.HostProvider inOrder(List<java.net.InetSocketAddress> order) {
        for (long seed = 0; seed < 1_000; seed++) {
            StaticHostProvider probe = new StaticHostProvider(order, seed);
            if (probe.next(0).getPort() == order.get(0).getPort()) {
                return new StaticHostProvider(order, seed);
            }
        }
        throw new AssertionError("no seed orders " + order);
    }

    private interface Call {
        void run() throws Exception;
    }

    /** Runs a write, retrying ConnectionLoss (a leader change after the kill); a retried create may find its node. */
    private static void retryingLoss(Call call) throws Exception {
        long deadline = System.nanoTime() + Ensembles.PATIENCE.toNanos();
        while (true) {
            try {
                call.run();
                return;
            } catch (KeeperException.ConnectionLossException | KeeperException.NodeExistsException e) {
                if (e instanceof KeeperException.NodeExistsException) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw e;
                }
            }
        }
    }
}
