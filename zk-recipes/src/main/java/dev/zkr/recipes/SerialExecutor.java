package dev.zkr.recipes;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;

/** Runs tasks one at a time, in submission order, on an underlying executor (keeps listener calls ordered). */
final class SerialExecutor implements Executor {

    private final Executor executor;
    private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
    private boolean running;

    SerialExecutor(Executor executor) {
        this.executor = executor;
    }

    @Override
    public void execute(Runnable task) {
        synchronized (tasks) {
            tasks.add(task);
            if (running) {
                return;
            }
            running = true;
        }
        executor.execute(this::drain);
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
