package dev.zkr.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * ZooKeeper's {@code zoo.cfg} read by zkr (issue 28): a server starts from an unchanged ZooKeeper configuration file.
 * Keys with the same meaning in both are read as they are ({@link ServerProperties}); this class maps the ZooKeeper
 * keys that zkr honours under another name ({@link #mapped}), refuses what zkr cannot honour safely, and words one
 * note for every key zkr reads differently or not at all ({@link #notes}): no key is ignored silently.
 *
 * <p>A file's member lines are read in ZooKeeper's form ({@code host:quorumPort:electionPort[:role][;[addr:]port]})
 * when it is a ZooKeeper file ({@link #isZooKeeperStyle}), in zkr's ({@code host:peerPort:clientPort}) otherwise.
 */
final class ZooKeeperConfig {

    private ZooKeeperConfig() {
    }

    /**
     * Whether the member lines are ZooKeeper's: the file has ZooKeeper's quorum keys {@code initLimit} or
     * {@code syncLimit} (ZooKeeper requires both with member lines, zkr has no use for them), or a member line with a
     * role or a client part ({@code :participant}, {@code :observer}, {@code ;...}), which only ZooKeeper's form has.
     */
    static boolean isZooKeeperStyle(Properties p) {
        if (p.getProperty("initLimit") != null || p.getProperty("syncLimit") != null) {
            return true;
        }
        for (String key : p.stringPropertyNames()) {
            if (key.startsWith("server.")) {
                String v = p.getProperty(key).trim().toLowerCase(Locale.ROOT);
                if (v.indexOf(';') >= 0 || v.endsWith(":participant") || v.endsWith(":observer")) {
                    return true;
                }
            }
        }
        return false;
    }

    /** ZooKeeper keys zkr honours under its own name: ZooKeeper's key → zkr's. */
    private static final Map<String, String> RENAMED = Map.of(
            "clientPortAddress", "bindAddress",
            "admin.serverPort", "adminPort",
            "admin.serverAddress", "adminAddress",
            "snapCount", "snapshotInterval");

    /**
     * The properties with ZooKeeper's keys put under zkr's names (a zkr key set in the same file wins), and
     * {@code secureClientPort} turned into a TLS-only client port. Refuses, with one message naming the key, what
     * zkr cannot honour: {@code secureClientPort} beside a different {@code clientPort} (zkr serves one client port;
     * {@code portUnification=true} serves TLS and plaintext on it), {@code dynamicConfigFile} (zkr reads its member
     * lines from this file only), and {@code admin.enableServer=false} beside {@code admin.serverPort}.
     */
    static Properties mapped(Properties p) {
        Properties out = new Properties();
        out.putAll(p);
        RENAMED.forEach((zk, zkr) -> {
            String v = p.getProperty(zk);
            if (v != null && p.getProperty(zkr) == null) {
                out.setProperty(zkr, v);
            }
        });
        String secure = p.getProperty("secureClientPort");
        if (secure != null) {
            String plain = p.getProperty("port", p.getProperty("clientPort"));
            if (plain != null && !plain.trim().equals(secure.trim())) {
                throw new IllegalArgumentException("secureClientPort " + secure.trim() + " beside clientPort "
                        + plain.trim() + ": zkr serves one client port; serve TLS and plaintext clients on it with "
                        + "portUnification=true (and drop secureClientPort), or drop clientPort for a TLS-only port");
            }
            out.setProperty("clientPort", secure.trim());
            if (p.getProperty("ssl.keyStore.location", p.getProperty("ssl.keyStore",
                    p.getProperty("ssl.certFile"))) == null) {
                throw new IllegalArgumentException("secureClientPort " + secure.trim() + " needs the client port's "
                        + "TLS keys (ssl.keyStore.location and ssl.trustStore.location, as in ZooKeeper)");
            }
        }
        if (p.getProperty("dynamicConfigFile") != null) {
            throw new IllegalArgumentException("dynamicConfigFile " + p.getProperty("dynamicConfigFile").trim()
                    + ": zkr reads its member lines from this file only; copy the server.N lines of the dynamic "
                    + "file here (zkr keeps membership changes in its log, not in a dynamic file)");
        }
        String enable = p.getProperty("admin.enableServer");
        if (enable != null && !ServerProperties.parseBoolean("admin.enableServer", enable)) {
            if (p.getProperty("admin.serverPort") != null || p.getProperty("adminPort") != null) {
                throw new IllegalArgumentException("admin.enableServer=false beside an admin port: drop one");
            }
            out.remove("adminPort");
        }
        return out;
    }

    /** ZooKeeper keys zkr does not read, and what it does instead. */
    private static final Map<String, String> INSTEAD = Map.ofEntries(
            Map.entry("initLimit", "zkr's followers catch up by DIFF or SNAP without a tick limit; a member that is "
                    + "down or slow is judged by electionTimeout and heartbeats (docs/ensemble.md)"),
            Map.entry("syncLimit", "a follower that falls behind is judged by electionTimeout and heartbeats "
                    + "(docs/ensemble.md)"),
            Map.entry("autopurge.snapRetainCount", "zkr keeps its newest snapshots and purges log segments after "
                    + "each snapshot by itself (logRetentionTxns)"),
            Map.entry("autopurge.purgeInterval", "zkr purges after each snapshot by itself (logRetentionTxns)"),
            Map.entry("serverCnxnFactory", "zkr's client port is always Netty"),
            Map.entry("standaloneEnabled", "one member line or none is a standalone server, more an ensemble"),
            Map.entry("peerType", "a member is an observer when its own server.N line says :observer"),
            Map.entry("electionAlg", "zkr elects with its own pre-vote election on the peer port"),
            Map.entry("quorumListenOnAllIPs", "the peer port binds the member line's host"),
            Map.entry("cnxTimeout", "peer connections time out by electionTimeout"),
            Map.entry("electionPortBindRetry", "zkr has no election port"),
            Map.entry("syncEnabled", "zkr's followers always log and apply what they receive"),
            Map.entry("forceSync", "zkr always fsyncs its log before it acknowledges a write"),
            Map.entry("preAllocSize", "zkr's log segments grow as written"),
            Map.entry("fsync.warningthresholdms", "slow fsyncs show in the admin endpoint's metrics"),
            Map.entry("globalOutstandingLimit", "zkr bounds in-flight bytes instead (maxInboundBytesTotal, "
                    + "maxOutboundBytesTotal)"),
            Map.entry("maxCnxns", "use maxConnections"),
            Map.entry("leaderServes", "zkr's leader always serves clients"),
            Map.entry("localSessionsEnabled", "every zkr session is global"),
            Map.entry("localSessionsUpgradingEnabled", "every zkr session is global"),
            Map.entry("admin.enableServer", "zkr's admin endpoint runs when admin.serverPort (or adminPort) is set"),
            Map.entry("admin.commandURL", "zkr's admin endpoint serves its own paths (/status, /metrics, /sessions)"),
            Map.entry("admin.idleTimeout", "zkr's admin endpoint closes idle connections itself"),
            Map.entry("metricsProvider.className", "zkr's metrics are served by its admin endpoint (/metrics, in "
                    + "Prometheus' text format)"),
            Map.entry("metricsProvider.httpPort", "zkr's metrics are served by its admin endpoint"),
            Map.entry("audit.enable", "zkr has no audit log"),
            Map.entry("skipACL", "zkr always checks ACLs"),
            Map.entry("jute.maxbuffer", "zkr's replies are limited to ZooKeeper's default (1 MiB) for ZooKeeper "
                    + "clients; requests by maxDataSize"),
            Map.entry("clientPortListenBacklog", "the client port uses the operating system's default backlog"),
            Map.entry("maxResponseCacheSize", "zkr caches no serialised responses"),
            Map.entry("digest.enabled", "zkr checks its log and snapshots with CRC32C and compares replicas' trees "
                    + "in its tests"),
            Map.entry("ssl.protocol", "zkr uses the JDK's TLS protocols (TLSv1.3, TLSv1.2)"),
            Map.entry("ssl.enabledProtocols", "zkr uses the JDK's TLS protocols (TLSv1.3, TLSv1.2)"),
            Map.entry("ssl.ciphersuites", "zkr uses the JDK's default cipher suites"),
            Map.entry("ssl.crl", "zkr checks no revocation lists"),
            Map.entry("ssl.ocsp", "zkr does not query OCSP"),
            Map.entry("ssl.authProvider", "x509 clients are authenticated by the x509 scheme, always on with TLS"),
            Map.entry("ssl.handshakeDetectionTimeoutMillis", "the client port tells TLS from plaintext by the first "
                    + "bytes, waiting at most the handshake timeout"),
            Map.entry("ssl.context.supplier.class", "zkr builds its TLS context from the ssl.* keys"));

    /**
     * One line for every key of {@code p} zkr reads differently or not at all: ZooKeeper keys it maps (renamed,
     * {@code secureClientPort}), ZooKeeper keys it does not read (what it does instead), ZooKeeper's member-line
     * parts it drops (the election port), and keys neither zkr nor ZooKeeper has ("unknown"). zkr's own keys and the
     * ZooKeeper keys it reads as they are give no line.
     */
    static List<String> notes(Properties p) {
        List<String> notes = new ArrayList<>();
        Set<String> keys = new TreeSet<>(p.stringPropertyNames());
        for (String key : keys) {
            String v = p.getProperty(key).trim();
            if (RENAMED.containsKey(key)) {
                notes.add(key + "=" + v + ": read as zkr's " + RENAMED.get(key)
                        + (key.startsWith("admin.") ? " (zkr's admin endpoint, its own JSON paths, not ZooKeeper's "
                        + "/commands)" : key.equals("snapCount") ? " (a snapshot every that many txns)" : ""));
            } else if (key.equals("secureClientPort")) {
                notes.add(key + "=" + v + ": the client port, TLS only (zkr serves one client port)");
            } else if (INSTEAD.containsKey(key)) {
                notes.add(key + "=" + v + " is not used: " + INSTEAD.get(key));
            } else if (key.startsWith("authProvider.")) {
                notes.add(key + "=" + v + " is not used: zkr's authentication schemes are digest, ip, x509 and "
                        + "super (no SASL/Kerberos yet; a deployment can add an AuthProvider)");
            } else if (key.startsWith("server.") && isZooKeeperStyle(p)) {
                notes.add(key + "=" + v + ": the quorum port is zkr's peer port; the election port is not used");
            } else if (!ServerProperties.isKnown(key) && !key.startsWith("server.")) {
                notes.add(key + " is not a setting zkr knows (neither zkr's nor a ZooKeeper setting it maps): "
                        + "ignored");
            }
        }
        return notes;
    }
}
