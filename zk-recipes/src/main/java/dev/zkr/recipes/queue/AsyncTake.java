package dev.zkr.recipes.queue;

import dev.zkr.client.ConnectionState;
import dev.zkr.client.ConnectionStateListener;
import dev.zkr.client.ZkException;
import dev.zkr.recipes.internal.Deadline;
import dev.zkr.recipes.internal.Retries;
import dev.zkr.recipes.internal.Signal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * One take of a queue that holds no thread while it waits. Each attempt runs on the recipes' executor and is the
 * blocking take's own code ({@link QueueCore#take(Deadline, QueueCore.Wake)}) told not to wait: when the take lock
 * is held by another take of this consumer, the attempt waits (no thread) for it to be given up; when no item is
 * there (or, in a delay queue, none is due yet), for the child watch its listing left, or a timer (the JDK's
 * shared delay scheduler, no thread per wait, cancelled once not needed) until the earliest item is due, whichever
 * comes first; while disconnected, for the connection. A claim in progress is the blocking take's, with its
 * failure semantics: a claim whose response was lost is decided before the attempt ends (an executor thread waits
 * for that, as the blocking take does), an undecidable one fails the future.
 *
 * <p>Completing the future in any other way (cancel, a timeout of the caller's) stops the waiting and removes the
 * watch; an item claimed by an attempt that was already running is given back ({@link QueueCore#giveBack}). Close
 * of the queue fails the future with IllegalStateException, close of the client with {@link ZkException.Closed}.
 */
final class AsyncTake<R> {

    private final QueueCore core;
    private final Executor executor;
    private final Function<QueueCore.Claimed, R> deliver;
    private final CompletableFuture<R> result = new CompletableFuture<>();
    /** Fired when the future completes: cuts a running attempt short. */
    private final Signal done = new Signal();
    private final ConnectionStateListener onConnection = this::connectionChanged;
    // guarded by this
    private QueueCore.Wake wake;
    /** Completes when the earliest item of a delay queue is due; cancelled (its scheduled task removed) if unused. */
    private CompletableFuture<Void> timer;
    private boolean running;
    private boolean again;

    private AsyncTake(QueueCore core, Executor executor, Function<QueueCore.Claimed, R> deliver) {
        this.core = core;
        this.executor = executor;
        this.deliver = deliver;
    }

    static <R> CompletableFuture<R> start(QueueCore core, Executor executor, Function<QueueCore.Claimed, R> deliver) {
        AsyncTake<R> t = new AsyncTake<>(core, executor, deliver);
        core.checkOpen();
        t.result.whenComplete((v, err) -> t.finished());
        core.registerAsync(t.result, t::step);
        core.client.addConnectionStateListener(t.onConnection);
        t.step();
        return t.result;
    }

    /** Runs an attempt on the executor (once more if one is running: something changed while it looked). */
    private void step() {
        synchronized (this) {
            if (result.isDone()) {
                return;
            }
            if (running) {
                again = true;
                return;
            }
            running = true;
            dropWake();
        }
        try {
            executor.execute(this::attempt);
        } catch (RuntimeException rejected) {
            result.completeExceptionally(rejected);
        }
    }

    private void attempt() {
        try {
            attemptOnce();
        } finally {
            boolean rerun;
            synchronized (this) {
                running = false;
                rerun = again;
                again = false;
            }
            if (rerun) {
                step();
            }
        }
    }

    private void attemptOnce() {
        if (result.isDone()) {
            return;
        }
        if (core.isClosed()) {
            result.completeExceptionally(new IllegalStateException("queue " + core.path() + " is closed"));
            return;
        }
        if (core.client.isClosed()) {
            result.completeExceptionally(new ZkException.Closed(core.path(), "the client is closed"));
            return;
        }
        if (!core.client.state().isConnected()) {
            Retries.whenConnected(core.client).thenRun(this::step);
            return;
        }
        CompletableFuture<Void> unlocked = core.nextUnlock();
        QueueCore.Wake w = new QueueCore.Wake();
        QueueCore.Claimed c;
        try {
            c = core.take(Deadline.after(core.client.sessionTimeout()).cancelledBy(done), w);
        } catch (IllegalStateException e) {
            result.completeExceptionally(e);
            return;
        } catch (RuntimeException e) {
            if (!result.isDone() && (e instanceof ZkException.ConnectionLoss || e instanceof ZkException.SessionExpired
                    || e instanceof ZkException.OperationTimeout)) {
                Retries.whenConnected(core.client).thenRun(this::step); // nothing taken: look again once connected
            } else {
                result.completeExceptionally(e);
            }
            return;
        }
        if (c == QueueCore.BUSY) {
            unlocked.thenRun(this::step); // another take of this consumer holds the lock: look again after it
            return;
        }
        if (c != null) {
            hand(c);
            return;
        }
        if (w.signal == null) {
            // ended without a watch (the attempt's time ran out, e.g. disconnected): look again once connected
            Retries.whenConnected(core.client).thenRun(this::step);
            return;
        }
        CompletableFuture<Void> due = w.dueInMillis < 0 ? null
                : new CompletableFuture<Void>().completeOnTimeout(null, w.dueInMillis, TimeUnit.MILLISECONDS);
        synchronized (this) {
            wake = w;
            timer = due;
        }
        w.signal.future().thenRun(this::step);
        if (due != null) {
            due.thenRun(this::step);
        }
        if (result.isDone()) {
            finished(); // completed while the watch was being set: remove it
        }
    }

    private void hand(QueueCore.Claimed c) {
        R r;
        try {
            r = deliver.apply(c);
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
            return;
        }
        if (!result.complete(r)) {
            core.giveBack(c); // cancelled while the claim was on its way
        }
    }

    private void connectionChanged(dev.zkr.client.ZkClient client, ConnectionState s) {
        if (s == ConnectionState.RECONNECTED || s == ConnectionState.CONNECTED
                || (s == ConnectionState.LOST && client.isClosed())) {
            step(); // the session (and a watch of ours) may be new, or the client closed: look again
        }
    }

    /** The future is complete: stop listening and remove the watch. */
    private void finished() {
        done.fire();
        core.client.removeConnectionStateListener(onConnection);
        synchronized (this) {
            dropWake();
        }
    }

    private void dropWake() {
        if (timer != null) {
            timer.cancel(false); // no-op once it fired; else its scheduled task goes (no timers pile up)
            timer = null;
        }
        QueueCore.Wake w = wake;
        wake = null;
        if (w != null && !w.signal.isFired()) {
            try {
                core.client.removeWatchesAsync(core.path(), w.watcher, w.type, true).exceptionally(x -> null);
            } catch (RuntimeException ignored) {
                // the client is closing: its watches go with it
            }
        }
    }
}
