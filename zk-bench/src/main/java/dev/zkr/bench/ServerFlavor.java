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
import java.util.Optional;

/** How to start one kind of server in its own JVM, tell when it serves, and talk to it. */
public abstract class ServerFlavor {

    static final String ZKR_MAIN = "dev.zkr.server.ZkServerMain";
    static final String ZOOKEEPER_MAIN = "org.apache.zookeeper.server.ZooKeeperServerMain";
    static final String ZOOKEEPER_QUORUM_MAIN = "org.apache.zookeeper.server.quorum.QuorumPeerMain";
    /** The tick both systems run with, standalone and in ensembles (zkr derives its election timeout from it). */
    static final int TICK_MS = 2000;
    /** Heap of each ensemble member's JVM. */
    static final String MEMBER_HEAP = "1g";

    /** The heap of a standalone server ({@code -Xmx}); {@link #heap(String)} changes it for big trees. */
    String heap = "2g";

    /** Runs this flavour's standalone servers with this {@code -Xmx} from now on; returns this. */
    ServerFlavor heap(String xmx) {
        this.heap = xmx;
        return this;
    }

    /**
     * Finds, in a line of this server's log, how long a snapshot took (group 1, ms), or null if the server does not
     * log it.
     */
    java.util.regex.Pattern snapshotMillis() {
        return null;
    }

    /** Short name used in file names: "zkr" or "zookeeper". */
    public abstract String name();

    /** Starts a server JVM on {@code dataDir} (created if missing) without waiting for it. */
    abstract ServerProcess start(Path dataDir, int port, Path logDir, String label);

    /** A new session of the benchmark's own client on this server. */
    abstract KvClient connect(String connectString, Duration timeout);

    /** Null when this flavour can run here, else why not (e.g. its classes are missing). */
    public abstract String unavailableReason();

    /**
     * Starts member {@code self} of an ensemble of {@code members} in its own JVM (config and id written into
     * {@code dataDir}), without waiting; its output lines go to {@code roles}.
     */
    abstract ServerProcess startMember(Ensemble.Member self, List<Ensemble.Member> members, Path dataDir, Path logDir,
                                       String label, RoleLog roles);

    /** The role a line of this server's output reports, if it is a role line. */
    abstract Optional<RoleLine> roleLine(String line);

    /**
     * The member's current role, or empty if it has none (yet): ZooKeeper is asked with the {@code srvr} four-letter
     * word; zkr's newest role line printed since {@code startedNanos} is taken.
     */
    abstract Optional<RoleLine> currentRole(ServerProcess p, RoleLog roles, long startedNanos);

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

    /** Apache ZooKeeper 3.9 standalone or ensemble member, forceSync on (the default). */
    public static final class ZooKeeper extends ServerFlavor {

        /** Observers every member's zoo.cfg lists ({@code server.N=...:observer}); none by default. */
        private final List<Ensemble.Member> observers;
        /**
         * Ids of the members whose own lines are marked {@code :observer} (zk-chaos's spares) in the configs written
         * from now on; none by default.
         */
        private volatile java.util.Set<Integer> observerIds;
        /** Further lines of every member's zoo.cfg. */
        private final List<String> settings;

        public ZooKeeper() {
            this(List.of());
        }

        /**
         * Members whose zoo.cfg also lists these static observers (each line ending in {@code :observer}); the
         * observers themselves are started with {@link #startObserver}.
         */
        ZooKeeper(List<Ensemble.Member> observers) {
            this(observers, java.util.Set.of(), List.of());
        }

        /**
         * Members whose lines for the ids in {@code observerIds} end in {@code :observer} (a member of those ids
         * starts with {@code peerType=observer}), with {@code settings} added to every zoo.cfg (such as
         * {@code reconfigEnabled=true}).
         */
        public ZooKeeper(java.util.Set<Integer> observerIds, List<String> settings) {
            this(List.of(), observerIds, settings);
        }

        private ZooKeeper(List<Ensemble.Member> observers, java.util.Set<Integer> observerIds, List<String> settings) {
            this.observers = List.copyOf(observers);
            this.observerIds = java.util.Set.copyOf(observerIds);
            this.settings = List.copyOf(settings);
        }

        @Override
        public String name() {
            return "zookeeper";
        }

        /**
         * Lists the members of {@code ids} as observers, and every other as a participant, in the zoo.cfg of each
         * member started from now on: a server that starts later (zk-chaos's spare) must name the voters of the
         * membership in force, or it finds no leader to follow.
         */
        public void observerIds(java.util.Set<Integer> ids) {
            this.observerIds = java.util.Set.copyOf(ids);
        }

        @Override
        ServerProcess start(Path dataDir, int port, Path logDir, String label) {
            return startStandalone(dataDir, port, logDir, label, heap, List.of("clientPort=" + port,
                    "clientPortAddress=127.0.0.1", "4lw.commands.whitelist=*"));
        }

        @Override
        java.util.regex.Pattern snapshotMillis() {
            return java.util.regex.Pattern.compile("Snapshot taken in (\\d+) ms");
        }

        /**
         * A standalone {@code QuorumPeerMain} with a zoo.cfg of the tick, the data dir, {@code settings} (the client
         * port lines and what else the flavor needs), no connection limit and no admin server; forceSync on.
         */
        static ServerProcess startStandalone(Path dataDir, int port, Path logDir, String label, String heap,
                                             List<String> settings) {
            try {
                Files.createDirectories(dataDir);
                Path cfg = dataDir.resolve("zoo.cfg");
                List<String> lines = new java.util.ArrayList<>(List.of("tickTime=" + TICK_MS,
                        "dataDir=" + dataDir.toAbsolutePath()));
                lines.addAll(settings);
                lines.addAll(List.of("maxClientCnxns=0", "admin.enableServer=false", ""));
                Files.writeString(cfg, String.join("\n", lines));
                return ServerProcess.start(label, heap, ZOOKEEPER_MAIN, List.of(cfg.toString()), port, logDir);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /**
         * {@code QuorumPeerMain zoo.cfg} with ZooKeeper's usual ensemble settings (initLimit 10, syncLimit 5 ticks),
         * {@code server.N=127.0.0.1:<quorumPort>:<electionPort>} lines and a {@code myid} file; forceSync on.
         */
        @Override
        ServerProcess startMember(Ensemble.Member self, List<Ensemble.Member> members, Path dataDir, Path logDir,
                                  String label, RoleLog roles) {
            try {
                Files.createDirectories(dataDir);
                Files.writeString(dataDir.resolve("myid"), self.id() + "\n");
                Path file = dataDir.resolve("zoo.cfg");
                Files.writeString(file, memberConfig(self, members, dataDir));
                return ServerProcess.startWatched(label, MEMBER_HEAP, ZOOKEEPER_QUORUM_MAIN, List.of(file.toString()),
                        self.clientPort(), logDir, roles);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** The zoo.cfg of member {@code self} of {@code members} (plus this flavour's observers). Pure. */
        String memberConfig(Ensemble.Member self, List<Ensemble.Member> members, Path dataDir) {
            StringBuilder cfg = new StringBuilder(String.join("\n",
                    "tickTime=" + TICK_MS,
                    "initLimit=10",
                    "syncLimit=5",
                    "dataDir=" + dataDir.toAbsolutePath(),
                    "clientPort=" + self.clientPort(),
                    "clientPortAddress=127.0.0.1",
                    "maxClientCnxns=0",
                    "admin.enableServer=false",
                    "4lw.commands.whitelist=*",
                    ""));
            for (String line : settings) {
                cfg.append(line).append('\n');
            }
            for (Ensemble.Member m : members) {
                cfg.append("server.").append(m.id()).append("=127.0.0.1:").append(m.peerPort()).append(':')
                        .append(m.electionPort()).append(observerIds.contains(m.id()) ? ":observer\n" : "\n");
            }
            if (observerIds.contains(self.id())) {
                cfg.append("peerType=observer\n");
            }
            for (Ensemble.Member o : observers) {
                cfg.append("server.").append(o.id()).append("=127.0.0.1:").append(o.peerPort()).append(':')
                        .append(o.electionPort()).append(":observer\n");
            }
            if (observers.contains(self)) {
                cfg.append("peerType=observer\n");
            }
            return cfg.toString();
        }

        /**
         * Starts {@code self}, one of this flavour's observers, as {@code QuorumPeerMain} with the voters' lines, every
         * observer's line and {@code peerType=observer}, on {@code dataDir} (created if missing), without waiting.
         */
        ServerProcess startObserver(Ensemble.Member self, List<Ensemble.Member> voters, Path dataDir, Path logDir,
                                    String label) {
            if (!observers.contains(self)) {
                throw new IllegalArgumentException("server " + self.id() + " is not one of the configured observers");
            }
            return startMember(self, voters, dataDir, logDir, label, new RoleLog(this::roleLine));
        }

        /** Whether {@code srvr} on this port reports {@code Mode: observer} (a synced observer serving clients). */
        static boolean observing(int clientPort) {
            return srvr(clientPort).contains("Mode: observer");
        }

        @Override
        Optional<RoleLine> roleLine(String line) {
            return RoleLine.parseZooKeeper(line);
        }

        /** {@code srvr} reports {@code Mode: leader|follower} only once the member is synced and serving. */
        @Override
        Optional<RoleLine> currentRole(ServerProcess p, RoleLog roles, long startedNanos) {
            String reply = srvr(p);
            if (reply.contains("Mode: leader")) {
                return Optional.of(new RoleLine(RoleLine.Kind.LEADING_SYNCED, -1, -1, -1));
            }
            if (reply.contains("Mode: follower")) {
                return Optional.of(new RoleLine(RoleLine.Kind.FOLLOWING_SYNCED, -1, -1, -1));
            }
            return Optional.empty();
        }

        @Override
        KvClient connect(String connectString, Duration timeout) {
            return ApacheKvClient.connect(connectString, timeout);
        }

        @Override
        public String unavailableReason() {
            return classPresent(ZOOKEEPER_MAIN) && classPresent(ZOOKEEPER_QUORUM_MAIN)
                    && classPresent("com.codahale.metrics.Reservoir")
                    && classPresent("org.xerial.snappy.SnappyInputStream")
                    ? null : "ZooKeeper server classes missing";
        }

        /** The {@code srvr} four-letter word reports a mode only once the server has loaded its data and serves. */
        @Override
        boolean ready(ServerProcess p) {
            return srvr(p).contains("Mode:");
        }

        /** The reply to the {@code srvr} four-letter word, empty if the server does not answer. */
        private static String srvr(ServerProcess p) {
            return srvr(p.port());
        }

        private static String srvr(int port) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 500);
                s.setSoTimeout(2000);
                OutputStream out = s.getOutputStream();
                out.write("srvr".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = s.getInputStream();
                return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            } catch (IOException e) {
                return "";
            }
        }
    }

    /** The zkr server ({@code dev.zkr.server.ZkServerMain}), standalone or ensemble member, fsync on every commit. */
    public static final class Zkr extends ServerFlavor {

        /** Whether the servers run with the admin endpoint on (its metrics recorded on the request path). */
        private final boolean admin;
        /** Further lines of every ensemble member's zkr.properties (e.g. {@code superDigest=...}); none by default. */
        private final List<String> settings;
        /** Ids of the members listed as observers ({@code observers=...}: zk-chaos's spares); none by default. */
        private final java.util.Set<Integer> observerIds;

        public Zkr() {
            this(false);
        }

        /** @param admin run the servers with {@code adminPort=0} (the admin endpoint and its metrics on) */
        public Zkr(boolean admin) {
            this(admin, List.of());
        }

        /** As {@link #Zkr(boolean)}, with {@code settings} added to every ensemble member's zkr.properties. */
        Zkr(boolean admin, List<String> settings) {
            this(admin, settings, java.util.Set.of());
        }

        /**
         * As {@link #Zkr(boolean)}, with {@code settings} added to every ensemble member's zkr.properties and the
         * members of {@code observerIds} listed as observers ({@code observers=...}) where they are among its lines.
         */
        public Zkr(boolean admin, List<String> settings, java.util.Set<Integer> observerIds) {
            this.admin = admin;
            this.settings = List.copyOf(settings);
            this.observerIds = java.util.Set.copyOf(observerIds);
        }

        @Override
        public String name() {
            return "zkr";
        }

        @Override
        ServerProcess start(Path dataDir, int port, Path logDir, String label) {
            try {
                Files.createDirectories(dataDir);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            // no per-host limit that matters, as ZooKeeper's maxClientCnxns=0 (the watches row opens 1,000 sessions)
            List<String> args = new java.util.ArrayList<>(List.of("--port", Integer.toString(port), "--data-dir",
                    dataDir.toString(), "--tick", Integer.toString(TICK_MS), "--max-connections-per-host", "10000"));
            if (admin) {
                args.addAll(List.of("--admin-port", "0"));
            }
            return ServerProcess.start(label, heap, ZKR_MAIN, args, port, logDir);
        }

        @Override
        java.util.regex.Pattern snapshotMillis() {
            return java.util.regex.Pattern.compile("Snapshot 0x[0-9a-f]+ written in (\\d+) ms");
        }

        /**
         * {@code ZkServerMain zkr.properties} with {@code server.N=127.0.0.1:<peerPort>:<clientPort>} lines,
         * {@code serverId} (also in a {@code myid} file), {@code ensembleName}, {@code tickTime} and the default election timeout (derived
         * from the tick); fsync on every commit, as standalone.
         */
        @Override
        ServerProcess startMember(Ensemble.Member self, List<Ensemble.Member> members, Path dataDir, Path logDir,
                                  String label, RoleLog roles) {
            try {
                Files.createDirectories(dataDir);
                Files.writeString(dataDir.resolve("myid"), self.id() + "\n");
                Path file = dataDir.resolve("zkr.properties");
                Files.writeString(file, memberConfig(self, members, dataDir));
                return ServerProcess.startWatched(label, MEMBER_HEAP, ZKR_MAIN,
                        List.of(file.toString(), "--server-id", Integer.toString(self.id())), self.clientPort(),
                        logDir, roles);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /**
         * The zkr.properties of {@code self} among {@code members}, or of {@code self} joining them if it is not one
         * of them. Pure.
         */
        String memberConfig(Ensemble.Member self, List<Ensemble.Member> members, Path dataDir) {
            StringBuilder cfg = new StringBuilder(String.join("\n",
                    "dataDir=" + dataDir.toAbsolutePath(),
                    "port=" + self.clientPort(),
                    "bindAddress=127.0.0.1",
                    "tickTime=" + TICK_MS,
                    "serverId=" + self.id(),
                    // members may see each other through proxies (zk-chaos): the id comes from the name
                    "ensembleName=loopback",
                    admin ? "adminPort=0\n" : ""));
            for (String line : settings) {
                cfg.append(line).append('\n');
            }
            for (Ensemble.Member m : members) {
                cfg.append("server.").append(m.id()).append("=127.0.0.1:").append(m.peerPort()).append(':')
                        .append(m.clientPort()).append('\n');
            }
            List<String> observing = members.stream().filter(m -> observerIds.contains(m.id()))
                    .map(m -> Integer.toString(m.id())).toList();
            if (!observing.isEmpty()) {
                cfg.append("observers=").append(String.join(",", observing)).append('\n');
            }
            if (!members.contains(self)) {
                // a server joining a running ensemble: the running members' lines, its own, join and the id
                cfg.append("server.").append(self.id()).append("=127.0.0.1:").append(self.peerPort()).append(':')
                        .append(self.clientPort()).append('\n');
                cfg.append("join=true\nensembleId=").append(Long.toHexString(ensembleId(members))).append('\n');
            }
            return cfg.toString();
        }

        /**
         * The ensemble id of members started by {@link #startMember} (named "loopback"): what a server joining them is
         * configured with, by the servers' own rule ({@code PeerConfig.ensembleIdOf} of "ensemble loopback" per id).
         */
        static long ensembleId(List<Ensemble.Member> members) {
            java.util.Map<Integer, String> lines = new java.util.TreeMap<>();
            members.forEach(m -> lines.put(m.id(), "ensemble loopback"));
            return dev.zkr.server.peer.PeerConfig.ensembleIdOf(lines);
        }

        /**
         * Starts {@code self} as a server joining the ensemble first started as {@code members} by {@link
         * #startMember} ({@code join=true}, their ensemble id, their lines and its own), without waiting; it serves
         * once a member added it ({@code reconfig}). {@code members} are those voters, which must still be running.
         */
        ServerProcess startJoiner(Ensemble.Member self, List<Ensemble.Member> members, Path dataDir, Path logDir,
                                  String label) {
            if (members.contains(self)) {
                throw new IllegalArgumentException("server " + self.id() + " is already a member");
            }
            return startMember(self, members, dataDir, logDir, label, new RoleLog(this::roleLine));
        }

        @Override
        Optional<RoleLine> roleLine(String line) {
            return RoleLine.parseZkr(line);
        }

        /** The newest {@code role: server N is ...} line since the member's start. */
        @Override
        Optional<RoleLine> currentRole(ServerProcess p, RoleLog roles, long startedNanos) {
            List<RoleLog.Event> since = roles.since(startedNanos);
            return since.isEmpty() ? Optional.empty() : Optional.of(since.get(since.size() - 1).role());
        }

        @Override
        KvClient connect(String connectString, Duration timeout) {
            return ZkrKvClient.connect(connectString, timeout);
        }

        @Override
        public String unavailableReason() {
            return classPresent(ZKR_MAIN) ? null : "zkr server not built yet";
        }
    }

    /**
     * A standalone server of {@code plain}'s system for the TLS rows (TLS on its client port, or the Netty plaintext
     * baseline): availability, role lines and roles as {@code plain}'s; no ensemble members (the TLS rows are
     * standalone).
     */
    abstract static class StandaloneTls extends ServerFlavor {
        final BenchTls tls;
        private final ServerFlavor plain;

        StandaloneTls(BenchTls tls, ServerFlavor plain) {
            this.tls = tls;
            this.plain = plain;
        }

        @Override
        public String unavailableReason() {
            return plain.unavailableReason();
        }

        @Override
        ServerProcess startMember(Ensemble.Member self, List<Ensemble.Member> members, Path dataDir, Path logDir,
                                  String label, RoleLog roles) {
            throw new UnsupportedOperationException("TLS rows are standalone");
        }

        @Override
        Optional<RoleLine> roleLine(String line) {
            return plain.roleLine(line);
        }

        @Override
        Optional<RoleLine> currentRole(ServerProcess p, RoleLog roles, long startedNanos) {
            return plain.currentRole(p, roles, startedNanos);
        }
    }

    /**
     * zkr with TLS only on its client port: the same JVM and flags as {@link Zkr}, plus a properties file with
     * {@code ssl.keyStore} (PKCS#12) and the client trusting the CA.
     */
    static final class ZkrTls extends StandaloneTls {

        ZkrTls(BenchTls tls) {
            super(tls, new Zkr());
        }

        @Override
        public String name() {
            return "zkr-tls";
        }

        @Override
        ServerProcess start(Path dataDir, int port, Path logDir, String label) {
            try {
                Files.createDirectories(dataDir);
                Path file = dataDir.resolve("zkr.properties");
                Files.writeString(file, String.join("\n",
                        "dataDir=" + dataDir.toAbsolutePath(),
                        "port=" + port,
                        "tickTime=" + TICK_MS,
                        "ssl.keyStore=" + tls.keyStore(),
                        "ssl.keyStorePassword=" + tls.password(),
                        ""));
                return ServerProcess.start(label, "2g", ZKR_MAIN, List.of(file.toString()), port, logDir);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        KvClient connect(String connectString, Duration timeout) {
            return ZkrKvClient.connect(connectString, timeout, tls.zkrClient());
        }
    }

    /**
     * ZooKeeper 3.9 with TLS only: {@code secureClientPort} (no plaintext {@code clientPort}),
     * {@code serverCnxnFactory=NettyServerCnxnFactory}, the same PKCS#12 key store, {@code ssl.clientAuth=none} (as
     * zkr's default; ZooKeeper's default is need), forceSync on. Clients use {@code ClientCnxnSocketNetty} with
     * {@code zookeeper.client.secure=true}.
     */
    static final class ZooKeeperTls extends StandaloneTls {

        ZooKeeperTls(BenchTls tls) {
            super(tls, new ZooKeeper());
        }

        @Override
        public String name() {
            return "zookeeper-tls";
        }

        @Override
        ServerProcess start(Path dataDir, int port, Path logDir, String label) {
            return ZooKeeper.startStandalone(dataDir, port, logDir, label, heap, List.of(
                    "secureClientPort=" + port,
                    "secureClientPortAddress=127.0.0.1",
                    "serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory",
                    "ssl.keyStore.location=" + tls.keyStore(),
                    "ssl.keyStore.password=" + tls.password(),
                    "ssl.keyStore.type=PKCS12",
                    "ssl.trustStore.location=" + tls.trustStore(),
                    "ssl.trustStore.password=" + tls.password(),
                    "ssl.trustStore.type=PKCS12",
                    "ssl.clientAuth=none"));
        }

        @Override
        KvClient connect(String connectString, Duration timeout) {
            return ApacheKvClient.connectTls(connectString, timeout, tls);
        }
    }

    /**
     * ZooKeeper 3.9 plaintext on Netty at both ends ({@code serverCnxnFactory=NettyServerCnxnFactory}, clients with
     * {@code ClientCnxnSocketNetty}): the plaintext baseline of {@link ZooKeeperTls}, which differs from it only
     * by TLS (ZooKeeper's default plaintext stack is NIO, which serves reads at a different rate).
     */
    static final class ZooKeeperNetty extends StandaloneTls {

        ZooKeeperNetty(BenchTls tls) {
            super(tls, new ZooKeeper());
        }

        @Override
        public String name() {
            return "zookeeper-netty";
        }

        @Override
        ServerProcess start(Path dataDir, int port, Path logDir, String label) {
            return ZooKeeper.startStandalone(dataDir, port, logDir, label, heap, List.of("clientPort=" + port,
                    "clientPortAddress=127.0.0.1",
                    "serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory"));
        }

        @Override
        KvClient connect(String connectString, Duration timeout) {
            return ApacheKvClient.connectNetty(connectString, timeout);
        }
    }
}
