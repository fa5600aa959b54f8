package dev.zkr.contract;

import dev.zkr.client.ConnectionState;
import dev.zkr.client.ConnectionStateListener;
import dev.zkr.client.ZkClient;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/** Records the connection states a client reports, in order. */
final class StateRecorder implements ConnectionStateListener {

    private final LinkedBlockingQueue<ConnectionState> queue = new LinkedBlockingQueue<>();
    private final List<ConnectionState> all = new ArrayList<>();

    @Override
    public void stateChanged(ZkClient client, ConnectionState newState) {
        synchronized (all) {
            all.add(newState);
        }
        queue.add(newState);
    }

    /** Asserts that the next reported state (within 10 s) is the given one. */
    void expect(ConnectionState state) {
        try {
            ConnectionState next = queue.poll(10, TimeUnit.SECONDS);
            assertNotNull(next, "no state change within 10 s, expected " + state + " (so far " + all() + ")");
            assertEquals(state, next, "states so far " + all());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** The next state if one comes within the time, else null. */
    ConnectionState poll(long millis) throws InterruptedException {
        return queue.poll(millis, TimeUnit.MILLISECONDS);
    }

    List<ConnectionState> all() {
        synchronized (all) {
            return List.copyOf(all);
        }
    }
}
