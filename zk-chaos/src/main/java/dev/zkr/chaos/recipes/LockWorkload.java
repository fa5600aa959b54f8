package dev.zkr.chaos.recipes;

import dev.zkr.chaos.workload.Worker;
import dev.zkr.recipes.DistributedLock;
import dev.zkr.recipes.Recipes;

/**
 * {@code lock}: zkr's {@link DistributedLock} on one path, through the worker's client (zkr's own, or
 * {@code ApacheZkClient} on ZooKeeper), with writes to a fenced resource; see {@link LockLoop}.
 */
public final class LockWorkload extends LockLoop {

    public LockWorkload() {
        super(HoldChecks.EXCLUSIVE);
    }

    @Override
    public String name() {
        return "lock";
    }

    @Override
    Session open(Worker w) {
        DistributedLock lock = Recipes.using(w.client()).lock(ROOT + "/mutex");
        return new ZkrSession(w, role -> lock);
    }

    @Override
    String role(Worker w) {
        return "mutex";
    }
}
