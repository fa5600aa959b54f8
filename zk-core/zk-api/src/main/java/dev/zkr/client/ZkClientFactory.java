package dev.zkr.client;

/**
 * How {@link ZkClientBuilder#build()} finds a client implementation: a {@link java.util.ServiceLoader} service,
 * provided by the native client module ({@code dev.zkr:zk-client}). Not for application code.
 */
public interface ZkClientFactory {

    /** Connects and waits until the first session is established (or fails with a {@link ZkException}). */
    ZkClient open(ZkClientConfig config);
}
