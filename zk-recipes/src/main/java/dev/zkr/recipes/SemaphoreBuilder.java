package dev.zkr.recipes;

import dev.zkr.client.ZkClient;

import java.util.concurrent.Executor;

/** Configures a {@link Semaphore}: {@code recipes.semaphore(path).permits(5).build()}. */
public final class SemaphoreBuilder {

    private final ZkClient client;
    private final String path;
    private final Executor executor;
    private int permits = 1;

    SemaphoreBuilder(ZkClient client, String path, Executor executor) {
        this.client = client;
        this.path = path;
        this.executor = executor;
    }

    /** The number of permits (at least 1; default 1). Every participant must use the same number. */
    public SemaphoreBuilder permits(int permits) {
        if (permits < 1) {
            throw new IllegalArgumentException("permits must be at least 1: " + permits);
        }
        this.permits = permits;
        return this;
    }

    public Semaphore build() {
        return new PermitSemaphore(client, path, permits, executor);
    }
}
