package dev.zkr.recipes;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/** Listeners, each called on its own executor; a failing listener is logged and does not stop the others. */
final class Listeners<L> {

    private static final Logger LOG = LoggerFactory.getLogger(Listeners.class);

    private record Entry<L>(L listener, Executor executor) {
    }

    private final CopyOnWriteArrayList<Entry<L>> entries = new CopyOnWriteArrayList<>();
    private final Executor defaultExecutor;

    Listeners(Executor defaultExecutor) {
        this.defaultExecutor = defaultExecutor;
    }

    void add(L listener, Executor executor) {
        entries.add(new Entry<>(Objects.requireNonNull(listener, "listener"),
                executor == null ? defaultExecutor : executor));
    }

    void remove(L listener) {
        entries.removeIf(e -> e.listener == listener);
    }

    void fire(Consumer<L> call) {
        for (Entry<L> e : entries) {
            try {
                e.executor.execute(() -> callOne(e.listener, call));
            } catch (RuntimeException rejected) {
                LOG.warn("recipe listener could not be scheduled: {}", rejected.toString());
            }
        }
    }

    /**
     * Calls every listener right here, in order, ignoring their executors: for a caller that already runs on the
     * one executor all its listeners share (a {@link SerialExecutor} task).
     */
    void callAll(Consumer<L> call) {
        for (Entry<L> e : entries) {
            callOne(e.listener, call);
        }
    }

    private static <L> void callOne(L listener, Consumer<L> call) {
        try {
            call.accept(listener);
        } catch (RuntimeException ex) {
            LOG.warn("recipe listener failed", ex);
        }
    }

    boolean isEmpty() {
        return entries.isEmpty();
    }

    void clear() {
        entries.clear();
    }
}
