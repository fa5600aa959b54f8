package dev.zkr.server.round;

import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * The connections that have messages queued in this round; flushed once per round. The flush
 * hands each event loop the batches of all its connections in one task: a round that fans out (a write whose watch
 * events go to many sessions) wakes each loop once, rather than once per connection, and the thread running the round,
 * which holds the round lock meanwhile, makes one hand-off per loop (each may cost it its CPU to the loop it wakes).
 */
final class Outbox {

    /**
     * Most connections one task writes: a fan-out to thousands of connections of one loop is split, so the loop
     * still reads its sockets between the tasks (Netty checks its time budget between tasks).
     */
    static final int CONNECTIONS_PER_TASK = 64;

    private List<Connection> dirty = new ArrayList<>();
    /** Per loop touched by the flush in progress: the loop, then its connections' steps (round state). */
    private final List<Executor> loops = new ArrayList<>();
    private final List<List<Runnable>> steps = new ArrayList<>();

    /** Notes that the connection has something to send (inside a round). */
    void mark(Connection c) {
        if (!c.dirty) {
            c.dirty = true;
            dirty.add(c);
        }
    }

    /** Hands every queued message to its event loop: one task per loop, one flush per connection (at the end of a round). */
    void flush() {
        if (dirty.isEmpty()) {
            return;
        }
        List<Connection> batch = dirty;
        dirty = new ArrayList<>();
        if (batch.size() == 1) {
            batch.get(0).flush();
            return;
        }
        for (Connection c : batch) {
            Executor loop = c.loop();
            if (loop == null) {
                c.flush();
                continue;
            }
            Runnable step = c.handOver();
            if (step == null) {
                continue;
            }
            int i = loops.indexOf(loop);
            if (i < 0) {
                loops.add(loop);
                steps.add(new ArrayList<>(4));
                i = loops.size() - 1;
            }
            steps.get(i).add(step);
        }
        for (int i = 0; i < loops.size(); i++) {
            List<Runnable> forLoop = steps.get(i);
            try {
                if (forLoop.size() == 1) {
                    loops.get(i).execute(forLoop.get(0));
                    continue;
                }
                for (int from = 0; from < forLoop.size(); from += CONNECTIONS_PER_TASK) {
                    List<Runnable> chunk = forLoop.subList(from, Math.min(forLoop.size(), from + CONNECTIONS_PER_TASK));
                    loops.get(i).execute(() -> runAll(chunk));
                }
            } catch (RejectedExecutionException stopped) {
                // the server's event loops are shut down (stop or kill): the connections are gone with them
            }
        }
        loops.clear();
        steps.clear();
    }

    /** Runs one loop's steps (event loop): a step that fails does not keep the others' connections waiting. */
    private static void runAll(List<Runnable> forLoop) {
        for (Runnable step : forLoop) {
            try {
                step.run();
            } catch (RuntimeException e) {
                LoggerFactory.getLogger(Outbox.class).warn("writing a round's messages failed", e);
            }
        }
    }
}
