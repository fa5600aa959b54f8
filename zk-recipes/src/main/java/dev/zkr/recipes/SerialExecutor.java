package dev.zkr.recipes;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;

/**
 * Runs tasks one at a time, in submission order, on an underlying executor (keeps listener calls ordered).
 *
 * <p>Submitting can be split in two: {@link #enqueue} fixes a task's place in the order (cheap, never runs
 * anything, so it may be called under a caller's lock) and {@link #kick} starts a drain when {@code enqueue} said
 * one is needed (call it after releasing the lock: a direct executor runs the tasks right there).
 */
final class SerialExecutor implements Executor {

    private static final Logger LOG = LoggerFactory.getLogger(SerialExecutor.class);

    private final Executor executor;
    private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
    private boolean running;

    SerialExecutor(Executor executor) {
        this.executor = executor;
    }

    /** True if the tasks run on exactly this executor. */
    boolean runsOn(Executor underlying) {
        return executor == underlying;
    }

    @Override
    public void execute(Runnable task) {
        if (enqueue(task)) {
            kick();
        }
    }

    /** Queues the task; true if the caller must then {@link #kick()} (no drain is running or scheduled). */
    boolean enqueue(Runnable task) {
        synchronized (tasks) {
            tasks.add(task);
            if (running) {
                return false;
            }
            running = true;
            return true;
        }
    }

    /** Schedules a drain on the underlying executor; if it refuses, the queued tasks are dropped and logged. */
    void kick() {
        try {
            executor.execute(this::drain);
        } catch (RuntimeException rejected) {
            int dropped;
            synchronized (tasks) {
                dropped = tasks.size();
                tasks.clear();
                running = false;
            }
            LOG.warn("{} listener call(s) could not be scheduled: {}", dropped, rejected.toString());
        }
    }

    private void drain() {
        while (true) {
            Runnable next;
            synchronized (tasks) {
                next = tasks.poll();
                if (next == null) {
                    running = false;
                    return;
                }
            }
            next.run();
        }
    }
}
