package dev.zkr.chaos.recipes;

import dev.zkr.chaos.history.History;
import dev.zkr.chaos.workload.Worker;
import dev.zkr.client.ConnectionStateListener;
import dev.zkr.recipes.DistributedLock;
import dev.zkr.recipes.LockLease;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

/**
 * A worker's zkr lock ({@link DistributedLock}, or a side of a read/write lock) over the worker's own client (zkr's
 * client, or {@code ApacheZkClient} on ZooKeeper); records the client's connection states and each lease's states.
 */
final class ZkrSession implements LockLoop.Session {

    private final Worker w;
    private final Function<String, DistributedLock> lockFor;
    private final ConnectionStateListener onConnection;

    /** {@code lockFor}: the lock to acquire for a role. */
    ZkrSession(Worker w, Function<String, DistributedLock> lockFor) {
        this.w = w;
        this.lockFor = lockFor;
        History h = w.history();
        this.onConnection = (c, s) -> Events.connState(h, w.index(), s.name());
        w.client().addConnectionStateListener(onConnection);
    }

    @Override
    public LockLoop.Claim acquire(String hold, String role, Duration timeout) {
        History h = w.history();
        Optional<LockLease> got = lockFor.apply(role).tryAcquire(timeout);
        long at = h.now();
        if (got.isEmpty()) {
            return null;
        }
        LockLease lease = got.get();
        // inline on the thread that reports the change (the client's event thread for a suspension): no delay
        lease.addStateListener((l, s) -> Events.instant(h, w.index(), Events.HOLD_STATE, hold, s.name(), null),
                Runnable::run);
        Events.instant(h, w.index(), Events.HOLD_STATE, hold, lease.state().name(), null);
        return new LockLoop.Claim() {
            @Override
            public long acquiredAt() {
                return at;
            }

            @Override
            public long token() {
                return lease.fencingToken();
            }

            @Override
            public boolean valid() {
                return lease.isValid();
            }

            @Override
            public void release() {
                lease.close();
            }
        };
    }

    @Override
    public void close() {
        w.client().removeConnectionStateListener(onConnection);
    }
}
