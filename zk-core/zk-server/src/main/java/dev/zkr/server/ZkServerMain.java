package dev.zkr.server;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;

/**
 * Runs a standalone zkr server until SIGTERM/SIGINT.
 *
 * <pre>
 * java dev.zkr.server.ZkServerMain zkr.properties
 * java dev.zkr.server.ZkServerMain --port 2181 --data-dir ./data [--tick 2000] [--min-session-timeout ms]
 *      [--max-session-timeout ms] [--max-data-size bytes] [--snapshot-interval txns] [--max-connections n]
 *      [--max-connections-per-host n] [--max-ephemerals-per-session n] [--outbound-high-water-mark bytes]
 *      [--max-outbound-bytes-per-connection bytes] [--max-outbound-bytes-total bytes] [--slow-reader-timeout ms]
 *      [--max-inbound-bytes-total bytes]
 *      [--server-id n] [--bind 127.0.0.1] [--config zkr.properties]
 * </pre>
 * Flags override the properties file. Prints {@code zkr server listening on host:port (data dir ...)} once ready.
 */
public final class ZkServerMain {

    private static final Map<String, String> FLAGS = Map.ofEntries(
            Map.entry("--port", "port"),
            Map.entry("--data-dir", "dataDir"),
            Map.entry("--tick", "tickTime"),
            Map.entry("--min-session-timeout", "minSessionTimeout"),
            Map.entry("--max-session-timeout", "maxSessionTimeout"),
            Map.entry("--max-data-size", "maxDataSize"),
            Map.entry("--snapshot-interval", "snapshotInterval"),
            Map.entry("--max-connections", "maxConnections"),
            Map.entry("--server-id", "serverId"),
            Map.entry("--max-connections-per-host", "maxConnectionsPerHost"),
            Map.entry("--max-ephemerals-per-session", "maxEphemeralsPerSession"),
            Map.entry("--outbound-high-water-mark", "outboundHighWaterMark"),
            Map.entry("--max-outbound-bytes-per-connection", "maxOutboundBytesPerConnection"),
            Map.entry("--max-outbound-bytes-total", "maxOutboundBytesTotal"),
            Map.entry("--max-inbound-bytes-total", "maxInboundBytesTotal"),
            Map.entry("--slow-reader-timeout", "slowReaderTimeout"),
            Map.entry("--bind", "bindAddress"));

    private ZkServerMain() {
    }

    public static void main(String[] args) {
        ServerConfig config;
        try {
            config = ServerConfig.fromProperties(parse(args));
        } catch (IllegalArgumentException e) {
            System.err.println("zkr: " + e.getMessage());
            System.err.println("usage: ZkServerMain [zkr.properties] [--port n] [--data-dir dir] [--tick ms] "
                    + "[--min-session-timeout ms] [--max-session-timeout ms] [--max-data-size bytes] "
                    + "[--snapshot-interval txns] [--max-connections n] [--max-connections-per-host n] "
                    + "[--max-ephemerals-per-session n] [--outbound-high-water-mark bytes] "
                    + "[--max-outbound-bytes-per-connection bytes] [--max-outbound-bytes-total bytes] "
                    + "[--slow-reader-timeout ms] [--max-inbound-bytes-total bytes] [--server-id n] "
                    + "[--bind address]");
            System.exit(2);
            return;
        }
        ZkServer server = ZkServer.start(config);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "zkr-shutdown"));
        System.out.println("zkr server listening on " + server.connectString() + " (data dir "
                + config.dataDir().toAbsolutePath() + ")");
        System.out.flush();
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Properties from an optional file (first plain argument or --config) overridden by flags. */
    static Properties parse(String[] args) {
        Properties p = new Properties();
        Properties flags = new Properties();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String value = null;
            int eq = a.indexOf('=');
            if (a.startsWith("--") && eq > 0) {
                value = a.substring(eq + 1);
                a = a.substring(0, eq);
            }
            if (!a.startsWith("--")) {
                load(p, Path.of(a));
                continue;
            }
            if (value == null) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(a + " needs a value");
                }
                value = args[++i];
            }
            if (a.equals("--config")) {
                load(p, Path.of(value));
            } else if (FLAGS.containsKey(a)) {
                flags.setProperty(FLAGS.get(a), value);
            } else {
                throw new IllegalArgumentException("unknown option " + a);
            }
        }
        p.putAll(flags);
        return p;
    }

    private static void load(Properties p, Path file) {
        try (Reader r = Files.newBufferedReader(file)) {
            p.load(r);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage());
        }
    }
}
