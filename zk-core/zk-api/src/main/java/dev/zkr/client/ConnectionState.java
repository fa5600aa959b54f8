package dev.zkr.client;

/**
 * The client's view of its connection and session.
 * <ul>
 *   <li>{@link #CONNECTED}: a new session is established (first connect, or a fresh session after {@link #LOST}).</li>
 *   <li>{@link #SUSPENDED}: the connection is gone; the session may still live on the server. Anything that
 *       depends on the session (leases, leadership, ephemerals) is uncertain.</li>
 *   <li>{@link #RECONNECTED}: the same session is attached again; its ephemerals and watches are intact.</li>
 *   <li>{@link #LOST}: the session expired (or the client was closed); its ephemerals are gone.</li>
 * </ul>
 */
public enum ConnectionState {
    CONNECTED,
    SUSPENDED,
    RECONNECTED,
    LOST;

    /** True for the states in which requests can be served. */
    public boolean isConnected() {
        return this == CONNECTED || this == RECONNECTED;
    }
}
