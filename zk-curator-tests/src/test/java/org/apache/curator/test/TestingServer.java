package org.apache.curator.test;

import java.io.Closeable;
import java.io.File;
import java.io.IOException;

/**
 * zkr's stand-in for curator-test's {@code TestingServer} (same public API): one standalone zkr server, started by
 * {@link TestingZooKeeperServer} (this module's, which starts zkr) from an {@link InstanceSpec}. First on the zkr
 * run's test class path, so every Curator test that makes a {@code new TestingServer(...)}, or extends
 * {@link BaseClassForTests}, gets a zkr server.
 */
public class TestingServer implements Closeable {

    private final InstanceSpec spec;
    private final TestingZooKeeperServer server;

    /** A server on a random port, started. */
    public TestingServer() throws Exception {
        this(-1, null, true);
    }

    /** A server on a random port, started if {@code start}. */
    public TestingServer(boolean start) throws Exception {
        this(-1, null, start);
    }

    /** A server on {@code port}, started. */
    public TestingServer(int port) throws Exception {
        this(port, null, true);
    }

    /** A server on {@code port}, started if {@code start}. */
    public TestingServer(int port, boolean start) throws Exception {
        this(port, null, start);
    }

    /** A server on {@code port} with its data in {@code tempDirectory} (null: a new temporary one), started. */
    public TestingServer(int port, File tempDirectory) throws Exception {
        this(port, tempDirectory, true);
    }

    /** A server on {@code port} (negative: a random one) with its data in {@code tempDirectory}, started if asked. */
    public TestingServer(int port, File tempDirectory, boolean start) throws Exception {
        this(new InstanceSpec(tempDirectory, Math.max(0, port), -1, -1, true, -1), start);
    }

    /** A server as {@code spec} says, started if {@code start}. */
    public TestingServer(InstanceSpec spec, boolean start) throws Exception {
        this.spec = spec;
        this.server = new TestingZooKeeperServer(new QuorumConfigBuilder(spec));
        if (start) {
            server.start();
        }
    }

    TestingZooKeeperServer getTestingZooKeeperServer() {
        return server;
    }

    /** The port (the bound one if the spec asked for port 0 and the server has started). */
    public int getPort() {
        return spec.getPort() > 0 ? spec.getPort() : server.getLocalPort();
    }

    /** The data directory. */
    public File getTempDirectory() {
        return spec.getDataDirectory();
    }

    public void start() throws Exception {
        server.start();
    }

    /** Stops the server; its data directory stays. */
    public void stop() throws IOException {
        server.stop();
    }

    /** Stops the server if it runs and starts it again (same port, same data); fails after {@link #close()}. */
    public void restart() throws Exception {
        server.restart();
    }

    /** Stops the server and deletes its data directory. */
    @Override
    public void close() throws IOException {
        server.close();
    }

    /** {@code host:port}. */
    public String getConnectString() {
        return spec.getHostname() + ":" + getPort();
    }
}
