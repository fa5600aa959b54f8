package dev.zkr.cli;

import dev.zkr.apache.ApacheZkClient;
import dev.zkr.client.ZkClient;

import java.time.Duration;
import java.util.List;

/**
 * The connection every command shares: where to connect ({@code --server}), through which client ({@code --apache}:
 * Apache ZooKeeper's, else zkr's native one) and how long to wait ({@code --timeout}). The client is opened on
 * first use, so {@code zkr --help} needs no server; the shell keeps one session for all its commands.
 */
public final class Session implements AutoCloseable {

    private final String server;
    private final boolean apache;
    private final Duration timeout;
    private final List<String> auth;
    private ZkClient client;

    public Session(String server, boolean apache, Duration timeout) {
        this(server, apache, timeout, List.of());
    }

    /**
     * @param auth {@code scheme:auth} strings ({@code --auth}), sent before any request on every connection of the
     *             session; parsed when the client opens (a malformed one is a {@link UsageException} then)
     */
    public Session(String server, boolean apache, Duration timeout, List<String> auth) {
        this.server = server;
        this.apache = apache;
        this.timeout = timeout;
        this.auth = List.copyOf(auth);
    }

    /** The connected client; connects on the first call (failing with a ZkException.ConnectionLoss). */
    public synchronized ZkClient client() {
        if (client == null) {
            List<AclSyntax.Auth> auths = auth.stream().map(AclSyntax::parseAuth).toList();
            if (apache) {
                ApacheZkClient.Builder b = ApacheZkClient.builder().connectString(server)
                        .sessionTimeout(Duration.ofSeconds(10)).connectTimeout(timeout);
                auths.forEach(a -> b.authInfo(a.scheme(), a.auth()));
                client = b.build();
            } else {
                ZkClient c = ZkClient.builder().connectString(server).sessionTimeout(Duration.ofSeconds(10))
                        .connectTimeout(timeout).requestTimeout(timeout).build();
                try {
                    // one by one, awaited: a refused one fails here, before the command (AuthFailed), not on
                    // whichever request happens to follow its answer; the client re-sends them on reconnect
                    for (AclSyntax.Auth a : auths) {
                        c.addAuthInfo(a.scheme(), a.auth());
                    }
                } catch (RuntimeException e) {
                    c.close();
                    throw e;
                }
                client = c;
            }
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
