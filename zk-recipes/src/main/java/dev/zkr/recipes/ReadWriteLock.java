package dev.zkr.recipes;

import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkPaths;

import java.util.concurrent.Executor;

/**
 * The classic shared read/write lock: readers and writers queue as ephemeral-sequential nodes under one path; a
 * reader waits only for the nearest earlier writer, a writer for its predecessor (so for everyone earlier).
 * Arrival order is kept (a waiting writer blocks later readers: no writer starvation).
 *
 * <p>Not reentrant: ownership is a {@link LockLease}, not a thread. A write lease does not downgrade: a reader
 * queued while holding the write lease waits for it (deadlock); release the write lease, then acquire a read
 * lease (another writer may come in between).
 */
public final class ReadWriteLock {

    static final String READ = "read-";
    static final String WRITE = "write-";

    private final String path;
    private final DistributedLock readLock;
    private final DistributedLock writeLock;

    ReadWriteLock(ZkClient client, String path, Executor executor) {
        this.path = ZkPaths.validate(path);
        this.readLock = new SequentialLock(client, path, READ, NodePredicate.sharedUnless(WRITE), executor);
        this.writeLock = new SequentialLock(client, path, WRITE, NodePredicate.EXCLUSIVE, executor);
    }

    /** The shared side: many readers hold it together, never alongside a writer. */
    public DistributedLock readLock() {
        return readLock;
    }

    /** The exclusive side: one writer, alone. */
    public DistributedLock writeLock() {
        return writeLock;
    }

    public String path() {
        return path;
    }
}
