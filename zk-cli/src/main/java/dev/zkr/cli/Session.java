package dev.zkr.cli;

import dev.zkr.apache.ApacheZkClient;
import dev.zkr.client.ZkClient;

import java.time.Duration;

/**
 * The connection every command shares: where to connect ({@code --server}), through which client ({@code --apache}:
 * Apache ZooKeeper's, else zkr's native one) and how long to wait ({@code --timeout}). The client is opened on
 * first use, so {@code zkr --help} needs no server; the shell keeps one session for all its commands.
 */
public final class Session implements AutoCloseable {

    private final String server;
    private final boolean apache;
    private final Duration timeout;
    private ZkClient client;

    public Session(String server, boolean apache, Duration timeout) {
        this.server = server;
        this.apache = apache;
        this.timeout = timeout;
    }

    /** The connected client; connects on the first call (failing with a ZkException.ConnectionLoss). */
    public synchronized ZkClient client() {
        if (client == null) {
            client = apache
                    ? ApacheZkClient.builder().connectString(server).sessionTimeout(Duration.ofSeconds(10))
                            .connectTimeout(timeout).build()
                    : ZkClient.builder().connectString(server).sessionTimeout(Duration.ofSeconds(10))
                            .connectTimeout(timeout).requestTimeout(timeout).build();
        }
        return client;
    }

    /** The connect string, {@code host:port[,host:port...]}. */
    public String server() {
        return server;
    }

    public boolean apache() {
        return apache;
    }

    /** True once a client was opened. */
    public synchronized boolean isOpen() {
        return client != null;
    }

    /** Ends the session (its ephemeral nodes go with it). */
    @Override
    public synchronized void close() {
        if (client != null) {
            client.close();
            client = null;
        }
    }
}
