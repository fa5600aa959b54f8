package dev.zkr.recipes;

import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkPaths;
import dev.zkr.recipes.internal.Deadline;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Several locks as one (Curator's {@code InterProcessMultiLock}): {@link #acquire()} takes every lock in one global
 * order (the paths sorted), so two multi-locks over overlapping paths never deadlock, and returns one lease that
 * holds them all. All or nothing: a timeout, interrupt or failure part-way releases the locks already taken, and a
 * lock lost (session expiry) while taking the others makes it start over.
 */
public final class MultiLock {

    private final ZkClient client;
    private final List<String> paths;
    private final List<DistributedLock> locks = new ArrayList<>();
    private final Executor executor;

    MultiLock(ZkClient client, List<String> paths, Executor executor) {
        if (paths.isEmpty()) {
            throw new IllegalArgumentException("a multi-lock needs at least one path");
        }
        TreeSet<String> ordered = new TreeSet<>();
        for (String p : paths) {
            ordered.add(ZkPaths.validate(p));
        }
        this.client = client;
        this.paths = List.copyOf(ordered);
        this.executor = executor;
        for (String p : this.paths) {
            locks.add(SequentialLock.mutex(client, p, executor));
        }
    }

    /** Waits until every lock is held. Honours interrupts (the locks taken so far are released). */
    public LockLease acquire() {
        return acquire(Deadline.NONE);
    }

    /** Waits at most {@code timeout} for all the locks; empty on timeout, with none of them held. */
    public Optional<LockLease> tryAcquire(Duration timeout) {
        return Optional.ofNullable(acquire(Deadline.after(timeout)));
    }

    private LockLease acquire(Deadline deadline) {
        while (true) {
            List<LockLease> taken = new ArrayList<>();
            boolean done = false;
            try {
                for (DistributedLock lock : locks) {
                    Optional<LockLease> lease = deadline.isBounded()
                            ? lock.tryAcquire(Duration.ofNanos(deadline.remainingNanos()))
                            : Optional.of(lock.acquire());
                    if (lease.isEmpty()) {
                        return null;
                    }
                    taken.add(lease.get());
                }
                if (taken.stream().noneMatch(l -> l.state() == LeaseState.LOST)) {
                    done = true;
                    return new MultiLease(taken, executor);
                }
                // a lock was lost (session expired) while we took the others: start over with the new session
            } finally {
                if (!done) {
                    MultiLease.closeAll(taken);
                }
            }
            if (deadline.expired()) {
                return null;
            }
        }
    }

    /**
     * As {@link #acquire()} without a thread: each lock's {@link DistributedLock#acquireAsync()} is started from the
     * completion of the one before, in the same global order. Cancel the future to give up: the lock being waited
     * for is given up and those taken are released, the last first. A lock lost while taking the others makes it
     * start over, as the blocking form does.
     */
    public CompletableFuture<LockLease> acquireAsync() {
        CompletableFuture<LockLease> out = new CompletableFuture<>();
        AtomicReference<CompletableFuture<LockLease>> waiting = new AtomicReference<>();
        out.whenComplete((lease, err) -> {
            CompletableFuture<LockLease> w = waiting.get();
            if (err != null && w != null) {
                w.cancel(false);
            }
        });
        take(out, waiting, 0, Collections.synchronizedList(new ArrayList<>()));
        return out;
    }

    private void take(CompletableFuture<LockLease> out, AtomicReference<CompletableFuture<LockLease>> waiting, int i,
                      List<LockLease> taken) {
        if (out.isDone()) {
            MultiLease.closeAll(taken); // given up meanwhile
            return;
        }
        if (i == locks.size()) {
            if (taken.stream().noneMatch(l -> l.state() == LeaseState.LOST)) {
                MultiLease all = new MultiLease(taken, executor);
                if (!out.complete(all)) {
                    all.close();
                }
            } else {
                MultiLease.closeAll(taken); // a lock went with an expired session: start over
                take(out, waiting, 0, Collections.synchronizedList(new ArrayList<>()));
            }
            return;
        }
        CompletableFuture<LockLease> next = locks.get(i).acquireAsync();
        waiting.set(next);
        if (out.isDone()) {
            next.cancel(false);
        }
        next.whenComplete((lease, err) -> {
            if (err != null) {
                MultiLease.closeAll(taken);
                out.completeExceptionally(err);
                return;
            }
            taken.add(lease);
            take(out, waiting, i + 1, taken);
        });
    }

    /** The paths, in the order they are taken. */
    public List<String> paths() {
        return paths;
    }

    @Override
    public String toString() {
        return "MultiLock" + paths + "@" + Long.toHexString(client.sessionId());
    }
}
