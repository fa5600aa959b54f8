package dev.zkr.contract;

import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkClientBuilder;
import dev.zkr.server.ServerConfig;
import dev.zkr.server.ZkServer;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A real zkr server in this JVM on a free loopback port, with a short tick (sessions of 0.5 s to 5 s) and a fast
 * container check, plus the clients a test opens against it (closed with it). Can be stopped and restarted on the
 * same port and data directory.
 */
final class TestServer implements AutoCloseable {

    private final ServerConfig config;
    private final List<ZkClient> clients = new ArrayList<>();
    private ZkServer server;
    private int port;

    private TestServer(ServerConfig config) {
        this.config = config;
        this.server = ZkServer.start(config);
        this.port = server.port();
    }

    static TestServer start(Path dataDir) {
        return start(ServerConfig.builder(dataDir));
    }

    static TestServer start(ServerConfig.Builder builder) {
        return new TestServer(builder
                .port(0)
                .tickTime(Duration.ofMillis(250))
                .containerCheckInterval(Duration.ofMillis(50))
                .build());
    }

    String connectString() {
        return "127.0.0.1:" + port;
    }

    int port() {
        return port;
    }

    ZkServer server() {
        return server;
    }

    /** A client with a 4 s session (closed with this server). */
    ZkClient client() {
        return client(builder());
    }

    ZkClientBuilder builder() {
        return ZkClient.builder().connectString(connectString()).sessionTimeout(Duration.ofSeconds(4))
                .connectTimeout(Duration.ofSeconds(10));
    }

    ZkClient client(ZkClientBuilder builder) {
        ZkClient c = builder.build();
        synchronized (clients) {
            clients.add(c);
        }
        return c;
    }

    /** Stops the server abruptly (connections dropped, sessions kept on disk). */
    void kill() {
        server.kill();
    }

    /** Starts the server again on the same port and data directory. */
    void restart() {
        server = ZkServer.start(config.withPort(port));
    }

    boolean expire(long sessionId) {
        return server.expireSession(sessionId);
    }

    @Override
    public void close() {
        synchronized (clients) {
            clients.forEach(ZkClient::close);
            clients.clear();
        }
        server.close();
    }
}
