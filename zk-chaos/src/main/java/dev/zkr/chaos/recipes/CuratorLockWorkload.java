package dev.zkr.chaos.recipes;

import dev.zkr.chaos.workload.Worker;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;

/**
 * {@code curator-lock}: Curator's {@link InterProcessMutex}, one per worker on its own
 * CuratorFramework, the same loop and checks as {@code lock} ({@link LockLoop}); the suspended window is Curator's
 * SUSPENDED/LOST, the token the lock node's czxid ({@link CuratorClient}).
 */
public final class CuratorLockWorkload extends LockLoop {

    public CuratorLockWorkload() {
        super(HoldChecks.EXCLUSIVE);
    }

    @Override
    public String name() {
        return "curator-lock";
    }

    @Override
    Session open(Worker w) throws InterruptedException {
        return new CuratorLockSession(w, c -> {
            InterProcessMutex m = new InterProcessMutex(c.framework(), ROOT + "/curator-mutex");
            return role -> m;
        });
    }

    @Override
    String role(Worker w) {
        return "mutex";
    }
}
