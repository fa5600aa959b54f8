package dev.zkr.contract;

import dev.zkr.client.WatchedEvent;
import dev.zkr.client.Watcher;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/** A watcher that records its events (and the thread they ran on) for assertions. */
final class RecordingWatcher implements Watcher {

    private final LinkedBlockingQueue<WatchedEvent> events = new LinkedBlockingQueue<>();
    private final List<WatchedEvent> all = new ArrayList<>();
    volatile Thread lastThread;

    @Override
    public void process(WatchedEvent event) {
        lastThread = Thread.currentThread();
        synchronized (all) {
            all.add(event);
        }
        events.add(event);
    }

    /** The next event, waiting up to 5 s for it. */
    WatchedEvent next() {
        try {
            WatchedEvent e = events.poll(5, TimeUnit.SECONDS);
            assertNotNull(e, "no watch event within 5 s");
            return e;
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new AssertionError(ex);
        }
    }

    /** Asserts the next event's type and path. */
    WatchedEvent expect(WatchedEvent.Type type, String path) {
        WatchedEvent e = next();
        assertEquals(type, e.type(), "event " + e);
        assertEquals(path, e.path(), "event " + e);
        return e;
    }

    /** Events received so far and not consumed with {@link #next}. */
    int pending() {
        return events.size();
    }

    /** Every event received so far. */
    List<WatchedEvent> all() {
        synchronized (all) {
            return List.copyOf(all);
        }
    }
}
