package dev.zkr.client.netty;

import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkClientBuilder;

/** Entry point of the native Netty client; use {@link ZkClient#builder()} instead of calling this directly. */
public final class NativeZkClient {

    private NativeZkClient() {
    }

    /** Opens a native client with the builder's settings and waits for its first session. */
    public static ZkClient open(ZkClientBuilder config) {
        throw new UnsupportedOperationException("native client not implemented yet");
    }
}
