package dev.zkr.client.netty;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The single thread of one client that runs watchers, state listeners and future completions, in the order they
 * were submitted. Submitting is lock-free; the thread parks only when its queue is empty. A task that throws is
 * logged and the thread goes on. Its backlog is bounded by the connection: past {@link #BACKLOG_HIGH} unfinished
 * tasks the client stops reading the socket until the backlog is down to {@link #BACKLOG_LOW}, so a server flooding
 * events meets TCP backpressure instead of filling the client's heap.
 */
final class EventThread implements Executor {

    private static final Logger LOG = LoggerFactory.getLogger(EventThread.class);

    /** Backlog (tasks queued or running) at which the client stops reading its connection. */
    static final int BACKLOG_HIGH = 10_000;
    /** Backlog at which it reads again. */
    static final int BACKLOG_LOW = BACKLOG_HIGH / 2;

    private final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();
    /** Run once the backlog is down to {@link #BACKLOG_LOW}, or null. */
    private final AtomicReference<Runnable> onDrained = new AtomicReference<>();
    /** The largest backlog seen (tests). */
    private volatile int peakBacklog;
    /** Tasks submitted and not finished (queued or running). */
    private final AtomicInteger unfinished = new AtomicInteger();
    private final Thread thread;
    private volatile boolean parked;
    private volatile boolean stopping;

    EventThread(String name) {
        thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void execute(Runnable task) {
        int backlog = unfinished.incrementAndGet();
        if (backlog > peakBacklog) {
            peakBacklog = backlog; // racy max: good enough for a bound check
        }
        queue.offer(task);
        if (parked) {
            LockSupport.unpark(thread);
        }
    }

    /**
     * True when no task submitted so far is pending or running. (Not "parked and the queue empty": the thread may
     * be waking up and have taken a task between those two looks.)
     */
    boolean idle() {
        return unfinished.get() == 0;
    }

    /** Tasks submitted and not finished. */
    int backlog() {
        return unfinished.get();
    }

    /** The largest backlog seen so far. */
    int peakBacklog() {
        return peakBacklog;
    }

    /**
     * Runs {@code resume} once the backlog is down to {@link #BACKLOG_LOW} (at once, on the caller, if it already is;
     * else on this thread). Replaces a callback not yet run.
     */
    void whenDrained(Runnable resume) {
        onDrained.set(resume);
        if (unfinished.get() <= BACKLOG_LOW) {
            runDrained();
        }
    }

    private void runDrained() {
        Runnable r = onDrained.getAndSet(null);
        if (r != null) {
            r.run();
        }
    }

    /** True when called from this event thread. */
    boolean isCurrent() {
        return Thread.currentThread() == thread;
    }

    /** Runs what is queued, then ends the thread; waits for it unless called from the thread itself. */
    void shutdown(long timeout, TimeUnit unit) {
        stopping = true;
        LockSupport.unpark(thread);
        if (!isCurrent()) {
            try {
                thread.join(unit.toMillis(timeout));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void run() {
        while (true) {
            Runnable task = queue.poll();
            if (task == null) {
                if (stopping) {
                    return;
                }
                parked = true;
                if (queue.isEmpty() && !stopping) {
                    LockSupport.park(this);
                }
                parked = false;
                continue;
            }
            try {
                task.run();
            } catch (Throwable t) {
                LOG.warn("event callback failed: {}", t.toString(), t);
            } finally {
                if (unfinished.decrementAndGet() <= BACKLOG_LOW && onDrained.get() != null) {
                    runDrained();
                }
            }
        }
    }
}
