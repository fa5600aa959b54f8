package dev.zkr.server.port;

import io.netty.util.concurrent.EventExecutor;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Closes the client connections that read nothing for their session timeout: one sweep per event loop every
 * {@link #SWEEP_MS} over the connections it serves, instead of a timer per connection (Netty's
 * {@code IdleStateHandler} cost a handler, its pipeline context and a scheduled task: about 220 B per session). A
 * connection is watched from its session's attach until it closes, always on its own event loop.
 */
final class IdleSweeper {

    /** How often each event loop looks: a silent connection is closed at most this much after its timeout. */
    static final long SWEEP_MS = 100;

    private final Map<EventExecutor, Set<ConnectionHandler>> byLoop = new ConcurrentHashMap<>();

    /** Watches {@code h} (on {@code loop}, its event loop). */
    void watch(ConnectionHandler h, EventExecutor loop) {
        byLoop.computeIfAbsent(loop, this::startSweeping).add(h);
    }

    /** Stops watching {@code h} (on its event loop). */
    void forget(ConnectionHandler h, EventExecutor loop) {
        Set<ConnectionHandler> watched = byLoop.get(loop);
        if (watched != null) {
            watched.remove(h);
        }
    }

    private Set<ConnectionHandler> startSweeping(EventExecutor loop) {
        Set<ConnectionHandler> watched = new HashSet<>(); // touched on its loop only
        loop.scheduleWithFixedDelay(() -> {
            long now = System.nanoTime();
            for (ConnectionHandler h : new ArrayList<>(watched)) { // a close removes it
                h.closeIfIdle(now);
            }
        }, SWEEP_MS, SWEEP_MS, TimeUnit.MILLISECONDS);
        return watched;
    }
}
