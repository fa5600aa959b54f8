package dev.zkr.apache;

import dev.zkr.client.ConnectionState;
import dev.zkr.client.ConnectionStateListener;
import dev.zkr.client.WatchedEvent;
import dev.zkr.client.Watcher;
import dev.zkr.client.ZkClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Records watch events or connection states in arrival order; waits for them with a deadline. */
final class Recorder<T> {

    static final Duration WAIT = Duration.ofSeconds(10);

    private final LinkedBlockingQueue<T> queue = new LinkedBlockingQueue<>();
    private final List<T> all = new ArrayList<>();

    static Recorder<WatchedEvent> events() {
        return new Recorder<>();
    }

    static Recorder<ConnectionState> states() {
        return new Recorder<>();
    }

    @SuppressWarnings("unchecked")
    private final Watcher watcher = event -> ((Recorder<WatchedEvent>) this).add(event);

    /** The one watcher of this recorder (the same instance every time, so it can be removed). */
    Watcher watcher() {
        return watcher;
    }

    ConnectionStateListener listener() {
        @SuppressWarnings("unchecked")
        Recorder<ConnectionState> self = (Recorder<ConnectionState>) this;
        return (ZkClient client, ConnectionState state) -> self.add(state);
    }

    synchronized void add(T item) {
        all.add(item);
        queue.add(item);
    }

    /** Everything recorded so far. */
    synchronized List<T> all() {
        return List.copyOf(all);
    }

    /** The next item, waiting up to {@link #WAIT}; fails if none comes. */
    T next() {
        try {
            T item = queue.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertNotNull(item, "nothing recorded within " + WAIT);
            return item;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Asserts the next item equals the expected one. */
    void expect(T expected) {
        assertEquals(expected, next());
    }

    /**
     * Asserts nothing more was recorded, after a round trip through the client: events precede the responses of
     * later requests, so any event due for earlier changes has arrived by then.
     */
    void expectNoneAfterRoundTrip(ZkClient client) {
        client.sync("/");
        client.exists("/");
        T item = queue.poll();
        assertNull(item, "unexpected " + item);
    }

    /** Asserts nothing (more) arrives within the given time. */
    void expectNothing(Duration within) {
        try {
            T item = queue.poll(within.toMillis(), TimeUnit.MILLISECONDS);
            assertNull(item, "unexpected " + item);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
