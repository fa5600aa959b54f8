package dev.zkr.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** How to start one kind of server in its own JVM, tell when it serves, and talk to it. */
abstract class ServerFlavor {

    static final String ZKR_MAIN = "dev.zkr.server.ZkServerMain";
    static final String ZOOKEEPER_MAIN = "org.apache.zookeeper.server.ZooKeeperServerMain";

    /** Short name used in file names: "zkr" or "zookeeper". */
    abstract String name();

    /** Starts a server JVM on {@code dataDir} (created if missing) without waiting for it. */
    abstract ServerProcess start(Path dataDir, int port, Path logDir, String label);

    /** A new session of the benchmark's own client on this server. */
    abstract KvClient connect(String connectString, Duration timeout);

    /** Null when this flavour can run here, else why not (e.g. its classes are missing). */
    abstract String unavailableReason();

    /** Starts a server and waits until a client can use it. */
    ServerProcess startServing(Path dataDir, Path logDir, String label, Duration timeout) {
        ServerProcess p = start(dataDir, ServerProcess.freePort(), logDir, label);
        try {
            awaitServing(p, timeout, null);
            return p;
        } catch (RuntimeException e) {
            p.kill();
            throw e;
        }
    }

    /**
     * Waits (with a deadline) until a new client session can read {@code path} (or just connect, if null): polls the
     * port, then opens sessions until one works.
     */
    void awaitServing(ServerProcess p, Duration timeout, String path) {
        long deadline = System.nanoTime() + timeout.toNanos();
        p.awaitPort(timeout);
        RuntimeException last = null;
        while (System.nanoTime() < deadline) {
            p.checkAlive();
            if (!ready(p)) {
                ServerProcess.pause(5);
                continue;
            }
            try (KvClient c = connect(p.connectString(), Duration.ofSeconds(5))) {
                if (path != null) {
                    c.getData(path);
                }
                return;
            } catch (RuntimeException e) {
                last = e;
                ServerProcess.pause(5);
            }
        }
        throw new IllegalStateException(p.name() + " not serving within " + timeout
                + (last == null ? "" : ": " + last.getMessage()), last);
    }

    /** A cheap readiness hint before trying a client session. */
    boolean ready(ServerProcess p) {
        return true;
    }

    static boolean classPresent(String name) {
        try {
            Class.forName(name, false, ServerFlavor.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** Apache ZooKeeper 3.9 standalone, forceSync on (the default). */
    static final class ZooKeeper extends ServerFlavor {

        @Override
        String name() {
            return "zookeeper";
        }

        @Override
        ServerProcess start(Path dataDir, int port, Path logDir, String label) {
            try {
                Files.createDirectories(dataDir);
                Path cfg = dataDir.resolve("zoo.cfg");
                Files.writeString(cfg, String.join("\n",
                        "tickTime=2000",
                        "dataDir=" + dataDir.toAbsolutePath(),
                        "clientPort=" + port,
                        "clientPortAddress=127.0.0.1",
                        "maxClientCnxns=0",
                        "admin.enableServer=false",
                        "4lw.commands.whitelist=*",
                        ""));
                return ServerProcess.start(label, "2g", ZOOKEEPER_MAIN, List.of(cfg.toString()), port, logDir);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        KvClient connect(String connectString, Duration timeout) {
            return ApacheKvClient.connect(connectString, timeout);
        }

        @Override
        String unavailableReason() {
            return classPresent(ZOOKEEPER_MAIN) && classPresent("com.codahale.metrics.Reservoir")
                    && classPresent("org.xerial.snappy.SnappyInputStream")
                    ? null : "ZooKeeper server classes missing";
        }

        /** The {@code srvr} four-letter word reports a mode only once the server has loaded its data and serves. */
        @Override
        boolean ready(ServerProcess p) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", p.port()), 500);
                s.setSoTimeout(2000);
                OutputStream out = s.getOutputStream();
                out.write("srvr".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = s.getInputStream();
                String reply = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
                return reply.contains("Mode:");
            } catch (IOException e) {
                return false;
            }
        }
    }

    /** The zkr server ({@code dev.zkr.server.ZkServerMain}), one node, fsync on every commit. */
    static final class Zkr extends ServerFlavor {

        @Override
        String name() {
            return "zkr";
        }

        @Override
        ServerProcess start(Path dataDir, int port, Path logDir, String label) {
            try {
                Files.createDirectories(dataDir);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return ServerProcess.start(label, "2g", ZKR_MAIN,
                    List.of("--port", Integer.toString(port), "--data-dir", dataDir.toString(), "--tick", "2000"),
                    port, logDir);
        }

        @Override
        KvClient connect(String connectString, Duration timeout) {
            return ZkrKvClient.connect(connectString, timeout);
        }

        @Override
        String unavailableReason() {
            return classPresent(ZKR_MAIN) ? null : "zkr server not built yet";
        }
    }
}
