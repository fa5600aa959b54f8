package dev.zkr.client.netty;

import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkClientConfig;
import dev.zkr.client.ZkClientFactory;

/** Registers the native client with {@link dev.zkr.client.ZkClientBuilder} (a {@code ServiceLoader} service). */
public final class NativeZkClientFactory implements ZkClientFactory {

    @Override
    public ZkClient open(ZkClientConfig config) {
        return NativeZkClient.open(config);
    }
}
