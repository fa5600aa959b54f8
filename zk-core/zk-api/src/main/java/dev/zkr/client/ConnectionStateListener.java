package dev.zkr.client;

/** Receives connection state changes of a {@link ZkClient}. */
@FunctionalInterface
public interface ConnectionStateListener {
    void stateChanged(ZkClient client, ConnectionState newState);
}
