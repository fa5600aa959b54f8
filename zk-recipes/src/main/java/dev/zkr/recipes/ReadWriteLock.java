package dev.zkr.recipes;

import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkPaths;
import dev.zkr.recipes.internal.ProtectedNames;

import java.util.ArrayList;
import java.util.List;
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
        this.readLock = new SequentialLock(client, path, READ, NodePredicate.sharedUnless(WRITE),
                sorted -> holders(sorted).stream().filter(n -> ProtectedNames.base(n).equals(WRITE)).toList(),
                executor);
        this.writeLock = new SequentialLock(client, path, WRITE, NodePredicate.exclusiveBehind(READ),
                ReadWriteLock::holders, executor);
    }

    /** The holders in a sorted listing: a first writer alone, or the readers ahead of the first writer. */
    static List<String> holders(List<String> sorted) {
        List<String> out = new ArrayList<>();
        for (String name : sorted) {
            if (ProtectedNames.base(name).equals(WRITE)) {
                if (out.isEmpty()) {
                    out.add(name);
                }
                break;
            }
            out.add(name);
        }
        return out;
    }

    /** The shared side: many readers hold it together, never alongside a writer. */
    public DistributedLock readLock() {
        return readLock;
    }

    /**
     * The exclusive side: one writer, alone. Its {@link DistributedLock#requestRevocation()} asks every current
     * holder (the read holders, or the writer); the read side's asks the writer holding, if any.
     */
    public DistributedLock writeLock() {
        return writeLock;
    }

    public String path() {
        return path;
    }
}
