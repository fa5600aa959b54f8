package dev.zkr.server.round;

import dev.zkr.wire.Message;

import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Client requests held, per connection in request order (with the rest of that connection's input behind them):
 * ordered requests while no leader can take them, and everything of a fenced connection ({@link Fence}). Released
 * in the order the connections were first held.
 *
 * <p>Round state: touched only inside a round, under {@link Core}'s round lock, by whichever thread runs it
 * (docs/architecture.md, Threads); in the simulator, by its one thread.
 */
final class HeldRequests {

    private Map<Connection, ArrayDeque<Message>> held = new LinkedHashMap<>();

    boolean isEmpty() {
        return held.isEmpty();
    }

    /** True if requests of the connection are held (what comes after them must wait behind them). */
    boolean holds(Connection c) {
        return !held.isEmpty() && held.containsKey(c);
    }

    /** Holds a message at the end of the connection's held requests. */
    void hold(Connection c, Message m) {
        held.computeIfAbsent(c, k -> new ArrayDeque<>()).addLast(m);
    }

    /** Holds a message behind the connection's held ones if it has any; false if it has none. */
    boolean holdBehind(Connection c, Message m) {
        if (!holds(c)) {
            return false;
        }
        held.get(c).addLast(m);
        return true;
    }

    /** Holds {@code requests} (in order) ahead of everything the connection has held already. */
    void holdAhead(Connection c, List<Message.Request> requests) {
        ArrayDeque<Message> q = held.computeIfAbsent(c, k -> new ArrayDeque<>());
        for (int i = requests.size() - 1; i >= 0; i--) {
            q.addFirst(requests.get(i));
        }
    }

    /** Takes everything held, to be handed in again (what is still to be held is held anew). */
    Map<Connection, ArrayDeque<Message>> release() {
        Map<Connection, ArrayDeque<Message>> batch = held;
        held = new LinkedHashMap<>();
        return batch;
    }

    /** Drops everything held and marks those connections closed (the server lets its clients go). */
    void closeAll() {
        held.keySet().forEach(c -> c.closed = true);
        held.clear();
    }

    void disconnected(Connection c) {
        held.remove(c);
    }
}
