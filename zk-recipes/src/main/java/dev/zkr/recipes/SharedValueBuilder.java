package dev.zkr.recipes;

import dev.zkr.client.ZkClient;

import java.util.Objects;
import java.util.concurrent.Executor;

/** Configures a {@link SharedValue}: {@code recipes.sharedValue(path).initial(bytes).start()}. */
public final class SharedValueBuilder {

    private final ZkClient client;
    private final String path;
    private final Executor executor;
    private byte[] initial = new byte[0];

    SharedValueBuilder(ZkClient client, String path, Executor executor) {
        this.client = client;
        this.path = path;
        this.executor = executor;
    }

    /** The value the node is created with if it does not exist yet (default: empty). */
    public SharedValueBuilder initial(byte[] initial) {
        this.initial = Objects.requireNonNull(initial, "initial").clone();
        return this;
    }

    /** Creates the node if needed, reads it and starts watching it. */
    public SharedValue start() {
        SharedValue v = new SharedValue(client, path, initial, executor);
        v.start();
        return v;
    }
}
