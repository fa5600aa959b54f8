package dev.zkr.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs n worker threads through a {@link Window} and joins them with a deadline. */
final class Workers {

    /** The body of worker {@code i}; it loops until {@code window.stopped()}. */
    @FunctionalInterface
    interface Body {
        void run(int worker) throws Exception;
    }

    private Workers() {
    }

    /** Starts the workers, runs the window on this thread, and waits for the workers to finish. */
    static void run(String name, int n, Window window, Body body) {
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int worker = i;
            Thread t = new Thread(() -> {
                try {
                    body.run(worker);
                } catch (Throwable e) {
                    window.fail(e);
                }
            }, name + "-" + i);
            t.setDaemon(true);
            threads.add(t);
        }
        threads.forEach(Thread::start);
        window.run();
        join(threads, window);
    }

    private static void join(List<Thread> threads, Window window) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (Thread t : threads) {
            try {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left > 0) {
                    t.join(left);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
            if (t.isAlive()) {
                window.fail(new IllegalStateException(t.getName() + " still running 60 s after the window"));
                t.interrupt();
            }
        }
    }
}
