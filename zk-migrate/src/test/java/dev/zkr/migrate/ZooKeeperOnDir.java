package dev.zkr.migrate;

import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;
import org.apache.zookeeper.server.persistence.FileTxnSnapLog;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A real standalone ZooKeeper 3.9.3 server on a data directory the test chooses (dataDir = dataLogDir), on a free
 * loopback port. TTL nodes are on (ZooKeeper's JVM-wide extended types switch). No container manager runs, so
 * containers and TTL nodes stay as written.
 */
final class ZooKeeperOnDir implements AutoCloseable {
    private final ZooKeeperServer server;
    private final ServerCnxnFactory factory;
    private final FileTxnSnapLog log;

    private ZooKeeperOnDir(ZooKeeperServer server, ServerCnxnFactory factory, FileTxnSnapLog log) {
        this.server = server;
        this.factory = factory;
        this.log = log;
    }

    static ZooKeeperOnDir start(Path dataDir) throws IOException, InterruptedException {
        System.setProperty("zookeeper.extendedTypesEnabled", "true");
        Files.createDirectories(dataDir.resolve("version-2"));
        FileTxnSnapLog log = new FileTxnSnapLog(dataDir.toFile(), dataDir.toFile());
        ZooKeeperServer server = new ZooKeeperServer(log, 100, 200, 60_000, -1, null, "");
        ServerCnxnFactory factory = ServerCnxnFactory.createFactory();
        factory.configure(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        factory.startup(server);
        return new ZooKeeperOnDir(server, factory, log);
    }

    String connectString() {
        return InetAddress.getLoopbackAddress().getHostAddress() + ":" + factory.getLocalPort();
    }

    @Override
    public void close() throws IOException {
        factory.shutdown();
        server.shutdown();
        log.close();
    }
}
