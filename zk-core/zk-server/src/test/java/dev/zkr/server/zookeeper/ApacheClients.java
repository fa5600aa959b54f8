package dev.zkr.server.zookeeper;

import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertNotNull;

/** The real Apache ZooKeeper 3.9.3 client against zkr servers, for the end-to-end tests: connect, record events. */
final class ApacheClients {

    /** How long a test waits for a server or client to do something (generous: the machine is shared). */
    static final Duration PATIENCE = Duration.ofSeconds(20);

    private ApacheClients() {
    }

    /** Every event a client's default watcher (or a watch given it) receives, in order. */
    static final class Events implements Watcher {
        final BlockingQueue<WatchedEvent> queue = new LinkedBlockingQueue<>();
        final List<Event.KeeperState> states = new CopyOnWriteArrayList<>();

        @Override
        public void process(WatchedEvent event) {
            if (event.getType() == Event.EventType.None) {
                states.add(event.getState());
            } else {
                queue.add(event);
            }
        }

        /** The next node event, failing after {@link #PATIENCE}. */
        WatchedEvent next() throws InterruptedException {
            WatchedEvent e = queue.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
            assertNotNull(e, "no watch event within " + PATIENCE.toSeconds() + " s");
            return e;
        }

        void awaitState(Event.KeeperState state) {
            await("state " + state + " (so far " + states + ")", () -> states.contains(state));
        }
    }

    /** A client of {@code connect} (waits until it is connected) reporting to {@code events}. */
    static ZooKeeper connect(String connect, int sessionTimeoutMs, Events events) {
        try {
            ZooKeeper zk = new ZooKeeper(connect, sessionTimeoutMs, events, false, config());
            await("connected to " + connect, () -> zk.getState() == ZooKeeper.States.CONNECTED);
            return zk;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A client resuming {@code sessionId} (it does not wait: the session may be refused). */
    static ZooKeeper resume(String connect, int sessionTimeoutMs, Events events, long sessionId, byte[] password) {
        try {
            return new ZooKeeper(connect, sessionTimeoutMs, events, sessionId, password, false,
                    new org.apache.zookeeper.client.StaticHostProvider(
                            new org.apache.zookeeper.client.ConnectStringParser(connect).getServerAddresses()),
                    config());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ZKClientConfig config() {
        ZKClientConfig c = new ZKClientConfig();
        c.setProperty(ZKClientConfig.ENABLE_CLIENT_SASL_KEY, "false");
        return c;
    }

    /** Polls until the condition holds; fails after {@link #PATIENCE}. */
    static void await(String what, java.util.function.BooleanSupplier condition) {
        dev.zkr.server.ServerFixture.await(what, PATIENCE, condition);
    }
}
