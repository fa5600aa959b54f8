package dev.zkr.server.zookeeper;

import java.util.List;
import java.util.Map;

/**
 * The answers to ZooKeeper's four-letter words, in the text format ZooKeeper 3.9's commands write
 * ({@code org.apache.zookeeper.server.command}), from the {@link Facts} the client port gathers. Pure: the port
 * decides which words are allowed ({@code 4lw.commands.whitelist}), gathers the facts and writes the answer.
 */
public final class FourLetterReplies {

    /** What ZooKeeper answers a word that needs a serving server while it is not (electing, or stopped). */
    static final String NOT_SERVING = "This ZooKeeper instance is not currently serving requests\n";

    /** The ZooKeeper version zkr speaks the client protocol of, first in every version string it reports. */
    public static final String ZOOKEEPER_VERSION = "3.9.3";

    private FourLetterReplies() {
    }

    /**
     * One client connection as {@code stat} and {@code cons} list it.
     *
     * @param remote      the client's address as Java prints an {@code InetSocketAddress} ({@code /127.0.0.1:5000})
     * @param interestOps 1 when the connection reads, 0 when it is paused (ZooKeeper's Netty interest ops)
     * @param sessionId   its session, 0 before the handshake
     * @param established when the session attached (epoch ms), 0 before
     * @param timeoutMs   the negotiated session timeout, 0 before
     */
    public record Client(String remote, int interestOps, long queued, long received, long sent, long sessionId,
                         long established, int timeoutMs) {
    }

    /**
     * The server as the words report it.
     *
     * @param serving    whether it serves clients now (a candidate does not)
     * @param mode       {@code standalone}, {@code leader} or {@code follower}
     * @param version    zkr's own version, reported after ZooKeeper's ({@link #fullVersion})
     * @param conf       {@code conf}'s lines, in order, as key and value
     * @param membership the ensemble's member lines ({@code server.N=...}), empty when standalone
     * @param watchers   sessions that hold a watch; {@code watchedPaths} and {@code watches}: paths, (session, path,
     *                   kind) triples; all -1 when not known (the round did not answer in time)
     * @param minLatency the request latency since the start in ms, as ZooKeeper's {@code min/avg/max}
     */
    public record Facts(boolean serving, String mode, String version, List<Client> clients, long received,
                        long sent, long outstanding, long zxid, int nodeCount, int watchers, int watchedPaths,
                        int watches, int ephemerals, long approximateDataSize, int sessions, long uptimeMs,
                        long dataDirSize, long logDirSize, Map<String, String> conf, List<String> membership,
                        long minLatency, double avgLatency, long maxLatency) {
    }

    /**
     * The version line ZooKeeper prints ({@code 3.9.3-<revision>, built on <date>}), with ZooKeeper's version first
     * (kazoo and other tools read the numbers before the first '-') and zkr's in the revision's place.
     */
    public static String fullVersion(String zkrVersion) {
        return ZOOKEEPER_VERSION + "-zkr-" + zkrVersion + ", built on unknown";
    }

    /**
     * The answer to {@code word}, which the server allows, or null for a word this server does not implement (the
     * port answers so itself).
     */
    public static String answer(String word, Facts f) {
        return switch (word) {
            case "ruok" -> "imok";
            case "isro" -> f.serving() ? "rw" : "null";
            case "envi" -> envi(f);
            case "srvr", "stat" -> f.serving() ? stat(f, word.equals("stat")) : NOT_SERVING;
            case "cons" -> f.serving() ? cons(f) : NOT_SERVING;
            case "conf" -> f.serving() ? conf(f) : NOT_SERVING;
            case "mntr" -> f.serving() ? mntr(f) : NOT_SERVING;
            case "wchs" -> f.serving() ? wchs(f) : NOT_SERVING;
            case "dirs" -> f.serving() ? "datadir_size: " + f.dataDirSize() + "\nlogdir_size: " + f.logDirSize()
                    + "\n" : NOT_SERVING;
            default -> null;
        };
    }

    /** ZooKeeper's line for a known word that is not in the whitelist. */
    public static String notWhitelisted(String word) {
        return word + " is not executed because it is not in the whitelist.\n";
    }

    private static String stat(Facts f, boolean withClients) {
        StringBuilder sb = new StringBuilder();
        sb.append("Zookeeper version: ").append(fullVersion(f.version())).append('\n');
        if (withClients) {
            sb.append("Clients:\n");
            for (Client c : f.clients()) {
                client(sb, c, true);
                sb.append('\n');
            }
            sb.append('\n');
        }
        sb.append("Latency min/avg/max: ").append(f.minLatency()).append('/').append(avg(f)).append('/')
                .append(f.maxLatency()).append('\n');
        sb.append("Received: ").append(f.received()).append('\n');
        sb.append("Sent: ").append(f.sent()).append('\n');
        sb.append("Connections: ").append(f.clients().size()).append('\n');
        sb.append("Outstanding: ").append(f.outstanding()).append('\n');
        sb.append("Zxid: 0x").append(Long.toHexString(f.zxid())).append('\n');
        sb.append("Mode: ").append(f.mode()).append('\n');
        sb.append("Node count: ").append(f.nodeCount()).append('\n');
        if (f.mode().equals("leader")) {
            sb.append("Proposal sizes last/min/max: -1/-1/-1\n");
        }
        return sb.toString();
    }

    private static String cons(Facts f) {
        StringBuilder sb = new StringBuilder();
        for (Client c : f.clients()) {
            client(sb, c, false);
            sb.append('\n');
        }
        return sb.append('\n').toString();
    }

    /** ZooKeeper's {@code ServerCnxn.dumpConnectionInfo}, with the fields zkr keeps. */
    private static void client(StringBuilder sb, Client c, boolean brief) {
        sb.append(' ').append(c.remote()).append('[').append(c.interestOps() == 0 ? "0"
                : Integer.toHexString(c.interestOps())).append("](queued=").append(c.queued())
                .append(",recved=").append(c.received()).append(",sent=").append(c.sent());
        if (!brief && c.sessionId() != 0) {
            sb.append(",sid=0x").append(Long.toHexString(c.sessionId())).append(",est=").append(c.established())
                    .append(",to=").append(c.timeoutMs());
        }
        sb.append(')');
    }

    private static String conf(Facts f) {
        StringBuilder sb = new StringBuilder();
        f.conf().forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
        if (!f.membership().isEmpty()) {
            sb.append("membership: \n");
            f.membership().forEach(m -> sb.append(m).append('\n'));
        }
        return sb.toString();
    }

    private static String wchs(Facts f) {
        return f.watchers() + " connections watching " + f.watchedPaths() + " paths\nTotal watches:" + f.watches()
                + "\n";
    }

    private static String mntr(Facts f) {
        StringBuilder sb = new StringBuilder();
        kv(sb, "version", fullVersion(f.version()));
        kv(sb, "server_state", f.mode());
        kv(sb, "avg_latency", avg(f));
        kv(sb, "max_latency", f.maxLatency());
        kv(sb, "min_latency", f.minLatency());
        kv(sb, "packets_received", f.received());
        kv(sb, "packets_sent", f.sent());
        kv(sb, "num_alive_connections", f.clients().size());
        kv(sb, "outstanding_requests", f.outstanding());
        kv(sb, "uptime", f.uptimeMs());
        kv(sb, "znode_count", f.nodeCount());
        kv(sb, "watch_count", f.watches());
        kv(sb, "ephemerals_count", f.ephemerals());
        kv(sb, "approximate_data_size", f.approximateDataSize());
        kv(sb, "global_sessions", f.sessions());
        kv(sb, "local_sessions", 0);
        if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.UnixOperatingSystemMXBean os) {
            kv(sb, "open_file_descriptor_count", os.getOpenFileDescriptorCount());
            kv(sb, "max_file_descriptor_count", os.getMaxFileDescriptorCount());
        }
        kv(sb, "connection_drop_probability", "0.0");
        if (!f.membership().isEmpty()) {
            kv(sb, "quorum_size", f.membership().size());
        }
        return sb.toString();
    }

    /** The average latency as ZooKeeper prints it: milliseconds with up to 4 decimals. */
    private static String avg(Facts f) {
        return new java.math.BigDecimal(f.avgLatency()).setScale(4, java.math.RoundingMode.HALF_UP).stripTrailingZeros()
                .toPlainString().replaceAll("^(\\d+)$", "$1.0");
    }

    private static void kv(StringBuilder sb, String key, Object value) {
        sb.append("zk_").append(key).append('\t').append(value).append('\n');
    }

    private static String envi(Facts f) {
        StringBuilder sb = new StringBuilder("Environment:\n");
        env(sb, "zookeeper.version", fullVersion(f.version()));
        String host;
        try {
            host = java.net.InetAddress.getLocalHost().getCanonicalHostName();
        } catch (java.net.UnknownHostException e) {
            host = "<NA>";
        }
        env(sb, "host.name", host);
        for (String p : List.of("java.version", "java.vendor", "java.home", "java.class.path", "java.library.path",
                "java.io.tmpdir", "java.compiler", "os.name", "os.arch", "os.version", "user.name", "user.home",
                "user.dir")) {
            env(sb, p, System.getProperty(p, "<NA>"));
        }
        Runtime rt = Runtime.getRuntime();
        int mb = 1024 * 1024;
        env(sb, "os.memory.free", rt.freeMemory() / mb + "MB");
        env(sb, "os.memory.max", rt.maxMemory() / mb + "MB");
        env(sb, "os.memory.total", rt.totalMemory() / mb + "MB");
        return sb.toString();
    }

    private static void env(StringBuilder sb, String key, String value) {
        sb.append(key).append('=').append(value).append('\n');
    }
}
