package dev.zkr.samples.mapreduce;

import dev.zkr.recipes.DistributedLock;
import dev.zkr.recipes.LeaseState;
import dev.zkr.recipes.LockLease;

import java.nio.file.Path;
import java.util.function.LongConsumer;

/**
 * Commits a reducer's finished partition into the shared job output: writes the part file to a temporary name
 * (outside the lock), then under the job's commit lock ({@link Layout#commitLock()}, a zk-recipes
 * {@link DistributedLock}) renames it into place and updates the {@link Manifest} read-modify-write. The file
 * system offers no compare-and-set, so without the lock two reducers finishing at once would each read the manifest
 * without the other's partition and the second rename would drop the first one's entry.
 *
 * <p>Fencing: the manifest records the lock's fencing token of its last writer; a committer whose token is smaller
 * (its session expired while it held the lock and a later holder has written since) or whose lease is lost
 * refuses to write ({@link Fenced}) before each of its two writes. A redone partition (the task came back after its
 * worker died, or was done twice) is committed again with identical content: the rename replaces the file and the
 * manifest entry.
 */
final class OutputCommitter {

    /** The committer's lease was lost, or a later holder of the commit lock has written the manifest. */
    static final class Fenced extends RuntimeException {
        Fenced(String message) {
            super(message);
        }
    }

    private final DistributedLock lock;
    private final Path dir;
    private final String worker;

    OutputCommitter(DistributedLock lock, Path dir, String worker) {
        this.lock = lock;
        this.dir = dir;
        this.worker = worker;
    }

    /**
     * Commits {@code data} as partition {@code partition}. {@code inLock} runs with the lock held and the part file
     * in place, before the manifest is updated, given the lease's fencing token (the sample's fault and test seam).
     * Returns the fencing token the commit was made with.
     */
    long commit(int partition, byte[] data, long words, int distinct, LongConsumer inLock) {
        Path target = JobOutput.part(dir, partition);
        Path tmp = dir.resolve(target.getFileName() + "." + worker + ".tmp");
        JobOutput.writeSynced(tmp, data);
        LockLease lease = lock.acquire();
        boolean crashed = false;
        try {
            long token = lease.fencingToken();
            fence(lease, partition);
            JobOutput.moveIntoPlace(tmp, target);
            inLock.accept(token);
            Manifest now = fence(lease, partition);
            Manifest next = now.with(partition, new Manifest.Part(data.length, words, distinct, worker, token));
            Path manifestTmp = dir.resolve(JobOutput.MANIFEST + "." + worker + ".tmp");
            JobOutput.writeSynced(manifestTmp, Nodes.utf8(next.encode()));
            JobOutput.moveIntoPlace(manifestTmp, dir.resolve(JobOutput.MANIFEST));
            return token;
        } catch (Killed k) {
            crashed = true; // a crash releases nothing: the lock node goes with the expired session
            throw k;
        } catch (Fenced f) {
            JobOutput.deleteIfExists(tmp); // refused before its rename: the part file stays the later holder's
            throw f;
        } finally {
            if (!crashed) {
                lease.close();
            }
        }
    }

    /** The current manifest, if this holder may still write; {@link Fenced} otherwise. */
    private Manifest fence(LockLease lease, int partition) {
        if (lease.state() == LeaseState.LOST) {
            throw new Fenced(worker + " lost the commit lock (session expired) while committing partition "
                    + partition + ": not written");
        }
        Manifest m = JobOutput.readManifest(dir);
        if (!m.admits(lease.fencingToken())) {
            throw new Fenced(worker + " is a stale holder of the commit lock (fencing token " + lease.fencingToken()
                    + ", manifest written with " + m.token() + "): partition " + partition + " not written");
        }
        return m;
    }
}
