package dev.zkr.server;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;

/**
 * Runs a zkr server until SIGTERM/SIGINT: standalone, or one member of an ensemble when the properties file has
 * {@code server.N=host:peerPort:clientPort} lines (this server's id from {@code --server-id}, {@code serverId} or
 * the {@code myid} file in the data dir).
 *
 * <pre>
 * java dev.zkr.server.ZkServerMain zkr.properties
 * java dev.zkr.server.ZkServerMain --port 2181 --data-dir ./data [--tick 2000] [--min-session-timeout ms]
 *      [--max-session-timeout ms] [--max-data-size bytes] [--snapshot-interval txns] [--max-connections n]
 *      [--max-connections-per-host n] [--max-ephemerals-per-session n] [--outbound-high-water-mark bytes]
 *      [--max-outbound-bytes-per-connection bytes] [--max-outbound-bytes-total bytes] [--slow-reader-timeout ms]
 *      [--max-inbound-bytes-total bytes] [--election-timeout ms] [--heartbeat-interval ms]
 *      [--server-id n] [--bind 127.0.0.1] [--admin-port n] [--admin-address 127.0.0.1] [--config zkr.properties]
 * </pre>
 * Flags override the properties file. Prints {@code zkr server listening on host:port (data dir ...)} once ready.
 * Bad settings print {@code zkr: <one message>} and the usage, and exit with status 2.
 */
public final class ZkServerMain {

    static final String USAGE = "usage: ZkServerMain [zkr.properties] [--config file] [--data-dir dir] [--port n]\n"
            + "         [--server-id n] [--bind address] [--tick ms] [--election-timeout ms] [--heartbeat-interval ms]\n"
            + "         [--min-session-timeout ms] [--max-session-timeout ms] [--max-data-size bytes]\n"
            + "         [--snapshot-interval txns] [--max-connections n] [--max-connections-per-host n]\n"
            + "         [--max-ephemerals-per-session n] [--outbound-high-water-mark bytes]\n"
            + "         [--max-outbound-bytes-per-connection bytes] [--max-outbound-bytes-total bytes]\n"
            + "         [--max-inbound-bytes-total bytes] [--slow-reader-timeout ms]\n"
            + "         [--admin-port n] [--admin-address 127.0.0.1]   (the admin HTTP endpoint: off unless set)\n"
            + "       an ensemble: server.N=host:peerPort:clientPort lines in the properties file (one per member,\n"
            + "         the same on every member) and this server's id from --server-id or dataDir/myid";

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
            Map.entry("--election-timeout", "electionTimeout"),
            Map.entry("--heartbeat-interval", "heartbeatInterval"),
            Map.entry("--bind", "bindAddress"),
            Map.entry("--admin-port", "adminPort"),
            Map.entry("--admin-address", "adminAddress"));

    private ZkServerMain() {
    }

    public static void main(String[] args) {
        ServerConfig config;
        Properties properties;
        try {
            properties = parse(args);
            config = ServerConfig.fromProperties(properties);
        } catch (IllegalArgumentException e) {
            System.err.println("zkr: " + e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
            return;
        }
        ZooKeeperConfig.notes(properties).forEach(n -> System.err.println("zkr: note: " + n));
        warnings(config).forEach(w -> System.err.println("zkr: warning: " + w));
        ZkServer server = ZkServer.start(config);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "zkr-shutdown"));
        System.out.println("zkr server listening on " + server.connectString() + " (data dir "
                + config.dataDir().toAbsolutePath()
                + (config.logDir().equals(config.dataDir().resolve("log")) ? ""
                        : ", log dir " + config.logDir().toAbsolutePath())
                + config.self().filter(m -> config.isEnsemble())
                .map(m -> ", server " + m.id() + (config.join() ? " joining the ensemble"
                        : " of " + config.members().size()) + ", peer port " + m.peerPort())
                .orElse("") + ")");
        if (server.adminUrl() != null) {
            System.out.println("zkr admin endpoint on " + server.adminUrl() + " (/metrics, /status, /health, console at /)");
        }
        System.out.flush();
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The configuration the arguments describe: {@link #parse} then {@link ServerConfig#fromProperties}. */
    static ServerConfig config(String[] args) {
        return ServerConfig.fromProperties(parse(args));
    }

    /** What is legal but probably not meant (an even number of members). */
    static List<String> warnings(ServerConfig config) {
        return MemberList.sizeWarning((int) config.members().stream().filter(m -> !m.observer()).count()).stream()
                .toList();
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
