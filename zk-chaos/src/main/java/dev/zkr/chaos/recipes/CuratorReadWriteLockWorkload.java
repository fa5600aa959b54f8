package dev.zkr.chaos.recipes;

import dev.zkr.chaos.workload.Worker;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;

/**
 * {@code curator-rwlock}: Curator's {@link InterProcessReadWriteLock}, one per worker on its own
 * CuratorFramework, the same loop and checks as {@code rwlock}.
 */
public final class CuratorReadWriteLockWorkload extends LockLoop {

    public CuratorReadWriteLockWorkload() {
        super(HoldChecks.READ_WRITE);
    }

    @Override
    public String name() {
        return "curator-rwlock";
    }

    @Override
    Session open(Worker w) throws InterruptedException {
        return new CuratorLockSession(w, c -> {
            InterProcessReadWriteLock rw = new InterProcessReadWriteLock(c.framework(), ROOT + "/curator-rw");
            return role -> role.equals("read") ? rw.readLock() : rw.writeLock();
        });
    }

    @Override
    String role(Worker w) {
        return w.random().nextInt(3) == 0 ? "write" : "read";
    }
}
