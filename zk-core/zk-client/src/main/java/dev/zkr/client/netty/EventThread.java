package dev.zkr.client.netty;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The single thread of one client that runs watchers, state listeners and future completions, in the order they
 * were submitted. Submitting is lock-free; the thread parks only when its queue is empty. A task that throws is
 * logged and the thread goes on.
 */
final class EventThread implements Executor {

    private static final Logger LOG = LoggerFactory.getLogger(EventThread.class);

    private final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();
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
        unfinished.incrementAndGet();
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
                unfinished.decrementAndGet();
            }
        }
    }
}
