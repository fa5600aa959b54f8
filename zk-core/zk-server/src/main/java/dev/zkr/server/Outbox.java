package dev.zkr.server;

import java.util.ArrayList;
import java.util.List;

/** The connections that have messages queued in this round of the core thread; flushed once per round. */
final class Outbox {

    private List<Connection> dirty = new ArrayList<>();

    /** Notes that the connection has something to send (core thread). */
    void mark(Connection c) {
        if (!c.dirty) {
            c.dirty = true;
            dirty.add(c);
        }
    }

    /** Hands every queued message to its event loop: one task and one flush per connection (core thread). */
    void flush() {
        if (dirty.isEmpty()) {
            return;
        }
        List<Connection> batch = dirty;
        dirty = new ArrayList<>();
        for (Connection c : batch) {
            c.flush();
        }
    }
}
