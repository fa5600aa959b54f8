package dev.zkr.server;

import dev.zkr.client.TlsConfig;

import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.Properties;

/**
 * Reads a {@code zkr.properties} file into a {@link ServerConfig} ({@link ServerConfig#fromProperties}): each key
 * parsed and handed to the builder, whose {@code build()} checks the whole. Bad settings throw
 * {@link IllegalArgumentException} with one message naming the key.
 */
final class ServerProperties {

    private ServerProperties() {
    }

    /**
     * ZooKeeper's {@code 4lw.commands.whitelist}: words separated by commas, blanks ignored, {@code *} for every word
     * ZooKeeper 3.9 knows.
     */
    static List<String> parseWords(String v) {
        List<String> words = new ArrayList<>();
        for (String w : v.split(",")) {
            String t = w.trim();
            if (t.equals("*")) {
                return new ArrayList<>(dev.zkr.server.zookeeper.FirstFrame.knownWords());
            }
            if (!t.isEmpty()) {
                words.add(t);
            }
        }
        return words;
    }

    /**
     * Reads the settings of a {@code zkr.properties} file: {@code dataDir} (required), {@code dataLogDir} (the log's
     * segments in its {@code log} subdirectory instead of {@code dataDir/log}), {@code port} (or
     * {@code clientPort}), {@code tickTime}, {@code minSessionTimeout}, {@code maxSessionTimeout}, {@code maxDataSize},
     * {@code snapshotInterval}, {@code logRetentionTxns}, {@code maxConnections}, {@code serverId},
     * {@code bindAddress}, the abuse limits, {@code electionTimeout}, {@code heartbeatInterval} (times in ms),
     * {@code ensembleName}, {@code adminPort}, {@code adminAddress}, {@code admin.auth} and {@code admin.tls} (the
     * admin HTTP endpoint: off unless {@code adminPort} is set), the member lines {@code server.N=host:peerPort:clientPort} and the TLS keys
     * ({@code ssl.*}, {@code sslQuorum}, {@code ssl.quorum.*}, {@code portUnification}, {@code ssl.reloadInterval};
     * see docs/security.md, TLS) and ZooKeeper's {@code 4lw.commands.whitelist}.
     *
     * <p>No member line: a standalone server, as before. With member lines the server's id is {@code serverId},
     * else the number in {@code dataDir/myid}, else (one line only) that line's id; its client port is the last
     * number of its own line (a {@code port} or {@code clientPort} that disagrees is refused) and, unless
     * {@code bindAddress} is set, the client port binds its line's host. ZooKeeper's {@code zoo.cfg} is read too
     * ({@link ZooKeeperConfig}: its member lines, keys mapped or refused); other keys are ignored, each with a note
     * ({@link ZooKeeperConfig#notes}). Bad settings throw {@link IllegalArgumentException} with one message.
     */
    static ServerConfig read(Properties file) {
        boolean zooKeeperLines = ZooKeeperConfig.isZooKeeperStyle(file);
        Properties p = ZooKeeperConfig.mapped(file);
        String dir = p.getProperty("dataDir");
        if (dir == null || dir.isBlank()) {
            throw new IllegalArgumentException("dataDir is required");
        }
        Path dataDir = Path.of(dir.trim());
        ServerConfig.Builder b = ServerConfig.builder(dataDir);
        String v;
        if ((v = p.getProperty("dataLogDir")) != null && !v.isBlank()) {
            b.logDir(Path.of(v.trim()).resolve("log")); // as dataDir holds it: dataLogDir=dataDir changes nothing
        }
        if ((v = p.getProperty("port", p.getProperty("clientPort"))) != null) {
            b.port(parseInt("port", v));
        }
        if ((v = p.getProperty("tickTime")) != null) {
            b.tickTime(Duration.ofMillis(parseMillis("tickTime", v)));
        }
        if ((v = p.getProperty("minSessionTimeout")) != null) {
            b.minSessionTimeout(Duration.ofMillis(parseMillis("minSessionTimeout", v)));
        }
        if ((v = p.getProperty("maxSessionTimeout")) != null) {
            b.maxSessionTimeout(Duration.ofMillis(parseMillis("maxSessionTimeout", v)));
        }
        if ((v = p.getProperty("maxDataSize")) != null) {
            b.maxDataSize(parseInt("maxDataSize", v));
        }
        if ((v = p.getProperty("snapshotInterval")) != null) {
            b.snapshotInterval(parseInt("snapshotInterval", v));
        }
        if ((v = p.getProperty("logRetentionTxns")) != null) {
            b.logRetentionTxns(parseInt("logRetentionTxns", v));
        }
        if ((v = p.getProperty("maxConnections")) != null) {
            b.maxConnections(parseInt("maxConnections", v));
        }
        if ((v = p.getProperty("maxEphemeralsPerSession")) != null) {
            b.maxEphemeralsPerSession(parseInt("maxEphemeralsPerSession", v));
        }
        if ((v = p.getProperty("maxConnectionsPerHost")) != null) {
            b.maxConnectionsPerHost(parseInt("maxConnectionsPerHost", v));
        } else if ((v = p.getProperty("maxClientCnxns")) != null) {
            int n = parseInt("maxClientCnxns", v); // ZooKeeper's name; as in ZooKeeper, 0 means no limit
            b.maxConnectionsPerHost(n == 0 ? Integer.MAX_VALUE : n);
        }
        if ((v = p.getProperty("outboundHighWaterMark")) != null) {
            b.outboundHighWaterMark(parseInt("outboundHighWaterMark", v));
        }
        if ((v = p.getProperty("maxOutboundBytesPerConnection")) != null) {
            b.maxOutboundBytesPerConnection(parseLong("maxOutboundBytesPerConnection", v));
        }
        if ((v = p.getProperty("maxOutboundBytesTotal")) != null) {
            b.maxOutboundBytesTotal(parseLong("maxOutboundBytesTotal", v));
        }
        if ((v = p.getProperty("maxInboundBytesTotal")) != null) {
            b.maxInboundBytesTotal(parseLong("maxInboundBytesTotal", v));
        }
        if ((v = p.getProperty("slowReaderTimeout")) != null) {
            b.slowReaderTimeout(Duration.ofMillis(parseMillis("slowReaderTimeout", v)));
        }
        if ((v = p.getProperty("superDigest")) != null && !v.isBlank()) {
            b.superDigest(v.trim());
        }
        if ((v = p.getProperty("ssl.x509SuperUser")) != null && !v.isBlank()) {
            b.x509SuperUser(v.trim());
        }
        if ((v = p.getProperty("electionTimeout")) != null) {
            b.electionTimeout(Duration.ofMillis(parseMillis("electionTimeout", v)));
        }
        if ((v = p.getProperty("ensembleName")) != null) {
            b.ensembleName(v);
        }
        if ((v = p.getProperty("join")) != null) {
            b.join(parseBoolean("join", v));
        }
        if ((v = p.getProperty("ensembleId")) != null) {
            try {
                b.ensembleId(Long.parseUnsignedLong(v.trim(), 16));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("ensembleId is not a hexadecimal id: '" + v.trim() + "'");
            }
        }
        if ((v = p.getProperty("reconfigEnabled")) != null) {
            b.reconfigEnabled(parseBoolean("reconfigEnabled", v));
        }
        if ((v = p.getProperty("heartbeatInterval")) != null) {
            b.heartbeatInterval(Duration.ofMillis(parseMillis("heartbeatInterval", v)));
        }
        readTls(p, b);
        Integer serverId = null;
        if ((v = p.getProperty("serverId")) != null) {
            serverId = parseInt("serverId", v);
            b.serverId(serverId);
        }
        if ((v = p.getProperty("bindAddress")) != null) {
            b.bindAddress(parseAddress(v));
        }
        if ((v = p.getProperty("adminPort")) != null) {
            b.adminPort(parseInt("adminPort", v));
        }
        if ((v = p.getProperty("adminAddress")) != null) {
            b.adminAddress(parseAddress(v));
        }
        if ((v = p.getProperty("admin.auth")) != null && !v.isBlank()) {
            b.adminAuth(parseIds("admin.auth", v));
        }
        if ((v = p.getProperty("admin.tls")) != null) {
            b.adminTls(parseBoolean("admin.tls", v));
        }
        if ((v = p.getProperty("4lw.commands.whitelist")) != null) {
            b.fourLetterWords(parseWords(v));
        }
        List<ServerConfig.Member> members = MemberList.parse(p, zooKeeperLines);
        if ((v = p.getProperty("observers")) != null && !v.isBlank()) {
            members = MemberList.withObservers(members, v);
        }
        if (!members.isEmpty()) {
            ServerConfig.Member self = self(members, serverId, dataDir);
            int clientPort = self.clientPort();
            if (clientPort == 0) { // a ZooKeeper line without a client part: the client port is clientPort's
                String port = p.getProperty("port", p.getProperty("clientPort"));
                if (port == null) {
                    throw new IllegalArgumentException("server." + self.id() + " has no client port: set clientPort "
                            + "(or ;clientPort at the end of the line, as ZooKeeper's dynamic form has it)");
                }
                clientPort = parseInt("clientPort", port);
            }
            for (String key : List.of("port", "clientPort")) {
                if ((v = p.getProperty(key)) != null && parseInt(key, v) != clientPort) {
                    throw new IllegalArgumentException(key + " " + v.trim() + " disagrees with server." + self.id()
                            + "=" + file.getProperty("server." + self.id()).trim() + ", whose client port is "
                            + clientPort + " (" + (zooKeeperLines ? "read as ZooKeeper's " + MemberList.ZOOKEEPER_FORMAT
                            : "zkr's lines are " + MemberList.FORMAT + "; a file with initLimit/syncLimit is read as"
                            + " ZooKeeper's") + "): drop " + key + " or make it agree");
                }
            }
            b.members(members).serverId(self.id()).port(clientPort);
            if (p.getProperty("bindAddress") == null) {
                b.bindAddress(hostAddress(self));
            }
        }
        return b.build();
    }

    /** zkr's keys (and ZooKeeper's read as they are), besides {@code server.N} and the TLS keys. */
    private static final java.util.Set<String> KEYS = java.util.Set.of("dataDir", "dataLogDir", "port", "clientPort", "tickTime",
            "minSessionTimeout", "maxSessionTimeout", "maxDataSize", "snapshotInterval", "logRetentionTxns",
            "maxConnections", "maxEphemeralsPerSession", "maxConnectionsPerHost", "maxClientCnxns",
            "outboundHighWaterMark", "maxOutboundBytesPerConnection", "maxOutboundBytesTotal", "maxInboundBytesTotal",
            "slowReaderTimeout", "superDigest", "electionTimeout", "ensembleName", "join", "ensembleId",
            "reconfigEnabled", "heartbeatInterval", "serverId", "observers",
            "bindAddress", "adminPort", "adminAddress", "admin.auth", "admin.tls", "4lw.commands.whitelist",
            "sslQuorum", "portUnification");

    /** The TLS keys' names after {@code ssl.} or {@code ssl.quorum.} ({@link TlsConfig#fromProperties}). */
    private static final java.util.Set<String> TLS_KEYS = java.util.Set.of("keyStore", "keyStore.location",
            "keyStorePassword", "keyStore.password", "keyStoreType", "keyStore.type", "trustStore",
            "trustStore.location", "trustStorePassword", "trustStore.password", "trustStoreType", "trustStore.type",
            "certFile", "keyFile", "keyPassword", "trustFile", "clientAuth", "hostnameVerification");

    /** Whether zkr reads this key as it is (its own, or ZooKeeper's of the same meaning). */
    static boolean isKnown(String key) {
        if (KEYS.contains(key) || key.equals("ssl.x509SuperUser") || key.equals("ssl.reloadInterval")) {
            return true;
        }
        if (key.startsWith("ssl.quorum.")) {
            return TLS_KEYS.contains(key.substring("ssl.quorum.".length()));
        }
        return key.startsWith("ssl.") && TLS_KEYS.contains(key.substring("ssl.".length()));
    }

    /** Ids {@code scheme:id} separated by {@code ;} (a digest id holds colons, an x509 subject commas). */
    static List<dev.zkr.client.Id> parseIds(String key, String value) {
        List<dev.zkr.client.Id> ids = new ArrayList<>();
        for (String part : value.split(";")) {
            String t = part.trim();
            if (t.isEmpty()) {
                continue;
            }
            int colon = t.indexOf(':');
            if (colon <= 0 || colon == t.length() - 1) {
                throw new IllegalArgumentException(key + ": '" + t + "' is not scheme:id");
            }
            ids.add(new dev.zkr.client.Id(t.substring(0, colon), t.substring(colon + 1)));
        }
        return ids;
    }

    /**
     * The TLS keys: {@code ssl.*} (client port; TLS there when a key store or PEM key is set), {@code sslQuorum=true}
     * with {@code ssl.quorum.*} falling back to {@code ssl.*} (peer port), {@code portUnification} and
     * {@code ssl.reloadInterval} (ms).
     */
    private static void readTls(Properties p, ServerConfig.Builder b) {
        TlsConfig client = TlsConfig.fromProperties(p, "ssl.", null);
        if (client != null && client.hasKeyMaterial()) {
            b.tls(client);
        }
        String v;
        if ((v = p.getProperty("sslQuorum")) != null && parseBoolean("sslQuorum", v)) {
            TlsConfig quorum = TlsConfig.fromProperties(p, "ssl.quorum.", "ssl.");
            if (quorum == null) {
                throw new IllegalArgumentException("sslQuorum=true needs ssl.quorum.keyStore and "
                        + "ssl.quorum.trustStore (or ssl.keyStore and ssl.trustStore)");
            }
            b.quorumTls(quorum);
        }
        if ((v = p.getProperty("portUnification")) != null) {
            b.portUnification(parseBoolean("portUnification", v));
        }
        if ((v = p.getProperty("ssl.reloadInterval")) != null) {
            b.tlsReloadInterval(Duration.ofMillis(parseMillis("ssl.reloadInterval", v)));
        }
    }

    static boolean parseBoolean(String key, String value) {
        String t = value.trim();
        if (!t.equalsIgnoreCase("true") && !t.equalsIgnoreCase("false")) {
            throw new IllegalArgumentException(key + " must be true or false: '" + value + "'");
        }
        return Boolean.parseBoolean(t);
    }

    /** This server's line: its id from {@code serverId}, else {@code myid}, else the only line. */
    private static ServerConfig.Member self(List<ServerConfig.Member> members, Integer serverId, Path dataDir) {
        OptionalInt myid = MyIdFile.read(dataDir);
        Path myidFile = dataDir.resolve(MyIdFile.NAME);
        int id;
        String source;
        if (serverId != null) {
            if (myid.isPresent() && myid.getAsInt() != serverId) {
                throw new IllegalArgumentException("serverId " + serverId + " disagrees with " + myidFile
                        + ", which holds " + myid.getAsInt() + " (is this another server's data dir?)");
            }
            id = serverId;
            source = "serverId";
        } else if (myid.isPresent()) {
            id = myid.getAsInt();
            source = myidFile.toString();
        } else if (members.size() == 1) {
            return members.get(0);
        } else {
            throw new IllegalArgumentException("which member is this server? set --server-id (serverId) or write "
                    + "its number to " + myidFile + " (members: " + ServerConfig.memberNames(members) + ")");
        }
        return members.stream().filter(m -> m.id() == id).findFirst().orElseThrow(() ->
                new IllegalArgumentException("server id " + id + " (from " + source + ") is not in the member list "
                        + ServerConfig.memberNames(members)));
    }

    private static InetAddress hostAddress(ServerConfig.Member self) {
        try {
            return InetAddress.getByName(self.host());
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException("server." + self.id() + "'s host '" + self.host()
                    + "' does not resolve (the client port binds it unless bindAddress is set)");
        }
    }

    /** A positive number of milliseconds. */
    static int parseMillis(String key, String value) {
        int ms = parseInt(key, value);
        if (ms <= 0) {
            throw new IllegalArgumentException(key + " must be a positive number of milliseconds: " + ms);
        }
        return ms;
    }

    static int parseInt(String key, String value) {
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " is not a number: '" + value + "'");
        }
    }

    static long parseLong(String key, String value) {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " is not a number: '" + value + "'");
        }
    }

    static InetAddress parseAddress(String value) {
        try {
            return InetAddress.getByName(value.trim());
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException("unknown bind address: " + value);
        }
    }
}
