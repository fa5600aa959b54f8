package dev.zkr.chaos.recipes;

import dev.zkr.chaos.workload.Worker;
import dev.zkr.recipes.ReadWriteLock;
import dev.zkr.recipes.Recipes;

/**
 * {@code rwlock}: zkr's {@link ReadWriteLock} on one path; two acquires in three read, one writes. Writers write to
 * the fenced resource; a writer valid at the same instant as any other holder is an anomaly; see {@link LockLoop}.
 */
public final class ReadWriteLockWorkload extends LockLoop {

    public ReadWriteLockWorkload() {
        super(HoldChecks.READ_WRITE);
    }

    @Override
    public String name() {
        return "rwlock";
    }

    @Override
    Session open(Worker w) {
        ReadWriteLock rw = Recipes.using(w.client()).readWriteLock(ROOT + "/rw");
        return new ZkrSession(w, role -> role.equals("read") ? rw.readLock() : rw.writeLock());
    }

    @Override
    String role(Worker w) {
        return w.random().nextInt(3) == 0 ? "write" : "read";
    }
}
