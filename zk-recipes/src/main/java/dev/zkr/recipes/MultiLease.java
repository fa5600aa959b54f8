package dev.zkr.recipes;

import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;

/**
 * The lease of a {@link MultiLock}: valid while every lock is held; its state is the worst of theirs (LOST if any
 * is lost, UNCERTAIN if any is uncertain). Closing it releases every lock, the last taken first.
 */
final class MultiLease implements LockLease {

    private final List<LockLease> leases;
    private final Listeners<BiConsumer<LockLease, LeaseState>> listeners;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicReference<LeaseState> reported = new AtomicReference<>(LeaseState.HELD);

    MultiLease(List<LockLease> leases, Executor executor) {
        this.leases = List.copyOf(leases);
        this.listeners = new Listeners<>(executor);
        for (LockLease l : this.leases) {
            l.addStateListener((lease, s) -> changed(), Runnable::run);
        }
    }

    /** Releases the leases, the last taken first. */
    static void closeAll(List<LockLease> taken) {
        for (int i = taken.size() - 1; i >= 0; i--) {
            taken.get(i).close();
        }
    }

    private void changed() {
        LeaseState now = state();
        LeaseState before = reported.getAndSet(now);
        if (before != now) {
            listeners.fire(l -> l.accept(this, now));
        }
    }

    /** The largest of the locks' tokens: it strictly increases across successive holders of the same paths. */
    @Override
    public long fencingToken() {
        long max = Long.MIN_VALUE;
        for (LockLease l : leases) {
            max = Math.max(max, l.fencingToken());
        }
        return max;
    }

    @Override
    public boolean isValid() {
        return !closed.get() && leases.stream().allMatch(LockLease::isValid);
    }

    @Override
    public LeaseState state() {
        if (closed.get()) {
            return LeaseState.RELEASED;
        }
        LeaseState worst = LeaseState.HELD;
        for (LockLease l : leases) {
            LeaseState s = l.state();
            if (s == LeaseState.LOST || s == LeaseState.RELEASED) {
                return LeaseState.LOST; // a part released by someone else's doing counts as lost
            }
            if (s == LeaseState.UNCERTAIN) {
                worst = LeaseState.UNCERTAIN;
            }
        }
        return worst;
    }

    /** The node of the first lock (in the global order). */
    @Override
    public String nodePath() {
        return leases.get(0).nodePath();
    }

    @Override
    public void addStateListener(BiConsumer<LockLease, LeaseState> listener, Executor executor) {
        listeners.add(listener, executor);
    }

    @Override
    public void close() {
        if (closed.getAndSet(true)) {
            return;
        }
        closeAll(leases);
        if (reported.getAndSet(LeaseState.RELEASED) != LeaseState.RELEASED) {
            listeners.fire(l -> l.accept(this, LeaseState.RELEASED));
        }
    }

    @Override
    public String toString() {
        return "MultiLease" + leases;
    }
}
