package dev.zkr.testkit;

import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkClientBuilder;
import dev.zkr.client.ZkException;
import dev.zkr.server.ServerConfig;
import dev.zkr.server.ZkServer;
import dev.zkr.server.peer.LinkFilter;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * zkr servers running in this JVM on loopback, for tests: start with {@code TestEnsemble.builder().start()}, connect
 * native clients with {@link #newClient()}, inject faults with {@link #kill(int)}, {@link #restart(int)} and
 * {@link #expireSession(long)}, and {@link #close()} everything (servers, clients, temp directories) at the end.
 * Servers are numbered from 0 (server {@code i} has server id {@code i + 1}).
 *
 * <p>One server runs standalone. Three or five form a replicated ensemble: each gets a client port and a peer port
 * (free ports below the ephemeral range, see {@link LoopbackPorts}, kept across {@link #restart(int)}), short timers
 * (election timeout 1 s by default, as a server's) and its own data directory; {@link #partition(int...)},
 * {@link #isolate(int)} and {@link #heal()} drop peer messages silently both ways while every socket stays up, as a
 * real partition does; client connections are not cut.
 *
 * <p>With {@link Builder#tls()} the client ports and (for an ensemble) the peer ports speak TLS only, with throwaway
 * {@link TlsMaterial}, and {@link #newClient()} hands out clients that trust it.
 */
public final class TestEnsemble implements AutoCloseable {

    private final Builder settings;
    private final Path baseDir;
    private final boolean deleteBaseDir;
    private final List<Slot> slots = new ArrayList<>();
    private final List<ZkClient> clients = new CopyOnWriteArrayList<>();
    private final LinkFilter linkFilter = new LinkFilter();
    private boolean closed;

    /**
     * One server position: its config (with the port it got), the running server or null, and whether it was removed
     * from the membership ({@link #removeServer}: its index is never given to another server, as its id is not).
     */
    private static final class Slot {
        ServerConfig config;
        ZkServer server;
        boolean removed;
    }

    private TestEnsemble(Builder b) {
        this.settings = b;
        try {
            this.deleteBaseDir = b.baseDir == null;
            this.baseDir = b.baseDir != null ? Files.createDirectories(b.baseDir)
                    : Files.createTempDirectory("zkr-testkit-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the ensemble's data directory", e);
        }
        try {
            startServers(b);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Attempts at starting the servers on other ports when one of theirs was taken between the probe and the bind. */
    private static final int BIND_ATTEMPTS = 10;

    /**
     * Starts every server on ports from {@link LoopbackPorts} (below the ephemeral range, so a restart finds its port
     * free). If another process took one of them between the probe and the bind, the servers started so far are
     * killed, their directories deleted, and all start again on other ports (only in a temporary base directory of
     * our own: a caller's {@link Builder#baseDir} is never wiped).
     */
    private void startServers(Builder b) {
        for (int attempt = 1; ; attempt++) {
            try {
                startServersOn(b, LoopbackPorts.take(b.servers == 1 ? 1 : 2 * b.servers));
                return;
            } catch (RuntimeException e) {
                if (!LoopbackPorts.bindFailure(e) || !deleteBaseDir || attempt == BIND_ATTEMPTS) {
                    throw e;
                }
                for (Slot slot : slots) {
                    if (slot.server != null) {
                        slot.server.kill();
                    }
                    deleteRecursively(slot.config.dataDir());
                }
                slots.clear();
            }
        }
    }

    private void startServersOn(Builder b, int[] ports) {
        if (b.servers == 1) {
            Slot slot = new Slot();
            slot.config = serverConfig(b, 0).port(ports[0]).build();
            slots.add(slot);
            slot.server = ZkServer.start(slot.config, linkFilter);
        } else {
            List<ServerConfig.Member> members = new ArrayList<>();
            for (int i = 0; i < b.servers; i++) {
                members.add(new ServerConfig.Member(i + 1, InetAddress.getLoopbackAddress().getHostAddress(),
                        ports[2 * i], ports[2 * i + 1]));
            }
            for (int i = 0; i < b.servers; i++) {
                Slot slot = new Slot();
                slot.config = serverConfig(b, i).port(members.get(i).clientPort()).members(members).build();
                slots.add(slot);
            }
            for (Slot slot : slots) {
                slot.server = ZkServer.start(slot.config, linkFilter);
            }
        }
    }

    private ServerConfig.Builder serverConfig(Builder b, int i) {
        Duration minSession = b.minSessionTimeout;
        if (b.servers > 1 && minSession.compareTo(b.electionTimeout.multipliedBy(4)) < 0) {
            minSession = b.electionTimeout.multipliedBy(4); // a failover must not expire sessions
        }
        ServerConfig.Builder cb = ServerConfig.builder(baseDir.resolve("server-" + i))
                .serverId(i + 1)
                .tickTime(b.tickTime)
                .minSessionTimeout(minSession)
                .maxSessionTimeout(b.maxSessionTimeout.compareTo(minSession) < 0 ? minSession : b.maxSessionTimeout)
                .maxDataSize(b.maxDataSize);
        if (b.servers > 1) {
            cb.electionTimeout(b.electionTimeout)
                    .heartbeatInterval(b.electionTimeout.dividedBy(10));
        }
        if (b.tls != null) {
            cb.tls(b.tls.serverTls());
            if (b.servers > 1) {
                cb.quorumTls(b.tls.quorumTls());
            }
        }
        if (b.superDigest != null) {
            cb.superDigest(b.superDigest);
        }
        if (b.configurer != null) {
            b.configurer.accept(cb);
        }
        return cb;
    }

    /**
     * The index of the current leader (an in-service leader: it sequences writes), waiting up to ~10 s for one.
     *
     * @throws IllegalStateException if no server leads by then
     */
    public int leader() {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            List<Slot> running = snapshotSlots();
            for (int i = 0; i < running.size(); i++) {
                ZkServer s = running.get(i).server;
                if (s != null && s.isLeading()) {
                    return i;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no server leads after 10 s (roles: " + roles() + ")");
            }
            java.util.concurrent.locks.LockSupport.parkNanos(2_000_000); // polling the servers' role
        }
    }

    /** Each server's role, for messages ({@code 0=LEADER 1=FOLLOWER 2=down}). */
    public String roles() {
        StringBuilder sb = new StringBuilder();
        List<Slot> running = snapshotSlots();
        for (int i = 0; i < running.size(); i++) {
            ZkServer s = running.get(i).server;
            sb.append(i).append('=').append(s == null ? "down" : s.role() + (s.isLeading() ? "*" : "")).append(' ');
        }
        return sb.toString().trim();
    }

    /**
     * The listed servers lose peer connectivity with all the others (both ways) until {@link #heal()}; messages
     * are dropped silently and sockets stay up. Client connections are not cut.
     */
    public void partition(int... side) {
        int[] ids = new int[side.length];
        for (int k = 0; k < side.length; k++) {
            slot(side[k]);
            ids[k] = side[k] + 1;
        }
        linkFilter.partition(ids);
    }

    /** = {@code partition(i)}. */
    public void isolate(int i) {
        partition(i);
    }

    /** Ends every partition. */
    public void heal() {
        linkFilter.heal();
    }

    /**
     * Freezes server {@code i} as SIGSTOP would until {@link #resume(int)}: it handles nothing from clients or peers
     * and answers nothing, its sockets stay open (its clients time out and move, its peers elect without it);
     * resumed, it handles at once everything queued meanwhile. {@link #kill}, {@link #restart} and {@link #close}
     * resume it first.
     */
    public synchronized void pause(int i) {
        running(i).pause();
    }

    /** Lets server {@code i} go on after {@link #pause(int)}. */
    public synchronized void resume(int i) {
        running(i).resume();
    }

    private ZkServer running(int i) {
        Slot s = slot(i);
        if (s.server == null) {
            throw new IllegalStateException("server " + i + " is not running");
        }
        return s.server;
    }

    /** {@code host:port} of server {@code i} only. */
    public String connectString(int i) {
        Slot s = slot(i);
        return s.config.bindAddress().getHostAddress() + ":" + s.config.port();
    }

    /** A builder: one server, tick 100 ms, session timeouts 200 ms .. 60 s, 1 MiB nodes. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * {@code host:port,...} of every member (voters, learners and observers, running or stopped); servers removed from
     * the membership are left out.
     */
    public synchronized String connectString() {
        return slots.stream().filter(s -> !s.removed)
                .map(s -> s.config.bindAddress().getHostAddress() + ":" + s.config.port())
                .collect(Collectors.joining(","));
    }

    // ---- membership changes (docs/membership.md) ----------------------------------------------------------------

    /** How long a membership change may take (a learner catching up included). */
    private static final Duration CHANGE_TIMEOUT = Duration.ofSeconds(60);

    /**
     * Starts a new server (the next index, a new server id, an empty data directory) that joins the ensemble as a
     * learner, and returns its index once the leader promoted it to voter (it caught up). The ensemble must have been
     * started with 3 or more servers.
     *
     * @throws IllegalStateException if the change does not complete within 60 s
     */
    public synchronized int addServer() {
        return join(false);
    }

    /**
     * Starts a new server that joins as an observer: it receives the log, serves clients (reads, sessions, writes
     * forwarded to the leader) and never counts toward a quorum. Returns its index once it applied its own addition.
     */
    public synchronized int addObserver() {
        return join(true);
    }

    /**
     * Removes server {@code i} from the membership (it may be the leader, which hands over once the change commits)
     * and stops it once the change committed. Its index stays taken (its id is never reused); {@link #isRunning}
     * is false for it from then on, and {@link #restart} refuses it.
     */
    public synchronized void removeServer(int i) {
        checkOpen();
        Slot removed = slot(i);
        if (removed.removed) {
            throw new IllegalStateException("server " + i + " was removed already");
        }
        int id = i + 1;
        change(dev.zkr.client.MembershipChange.remove(id), m -> m.member(id) == null);
        ZkServer witness = runningMember(i);
        await(witness, m -> m.member(id) == null, "server " + i + " removed");
        removed.removed = true;
        if (removed.server != null) {
            removed.server.close();
            removed.server = null;
        }
    }

    /** The indexes of the current voters, ascending (the membership a running member holds in force). */
    public synchronized List<Integer> voters() {
        return runningMember(-1).membership().ids(dev.zkr.client.EnsembleMember.Role.VOTER).stream()
                .map(id -> id - 1).toList();
    }

    private int join(boolean observer) {
        checkOpen();
        if (settings.servers < 2) {
            throw new IllegalStateException("a standalone server cannot grow: start the ensemble with 3 servers");
        }
        ZkServer member = runningMember(-1);
        int i = slots.size();
        int id = i + 1;
        int[] ports = LoopbackPorts.take(2);
        String host = InetAddress.getLoopbackAddress().getHostAddress();
        List<ServerConfig.Member> lines = new ArrayList<>();
        // the voters' lines (a joining server takes its configured members for the voters until its log or snapshot
        // says otherwise) and its own; it learns of the other members from the records
        member.membership().members().stream().filter(m -> m.role() == dev.zkr.client.EnsembleMember.Role.VOTER)
                .forEach(m -> lines.add(new ServerConfig.Member(m.id(), m.host(), m.peerPort(), m.clientPort())));
        lines.add(new ServerConfig.Member(id, host, ports[0], ports[1]));
        Slot slot = new Slot();
        slot.config = serverConfig(settings, i).port(ports[1]).members(lines).join(true)
                .ensembleId(member.ensembleId()).build();
        slots.add(slot);
        slot.server = ZkServer.start(slot.config, linkFilter);
        dev.zkr.client.EnsembleMember.Role role = observer ? dev.zkr.client.EnsembleMember.Role.OBSERVER
                : dev.zkr.client.EnsembleMember.Role.VOTER;
        change(observer ? dev.zkr.client.MembershipChange.addObserver(id, host, ports[0], ports[1])
                : dev.zkr.client.MembershipChange.add(id, host, ports[0], ports[1]), m -> m.member(id) != null);
        await(slot.server, m -> m.member(id) != null && m.member(id).role() == role,
                "server " + i + " a member as " + role);
        return i;
    }

    /**
     * Asks the leader for {@code change} until it is made: a change asked of a server that stopped leading, or while
     * another change is pending, is asked again of the leader then (unless {@code done} shows it was made after all).
     */
    private void change(dev.zkr.client.MembershipChange change,
                        java.util.function.Predicate<dev.zkr.tree.Txn.Membership> done) {
        long deadline = System.nanoTime() + CHANGE_TIMEOUT.toNanos();
        RuntimeException last = null;
        while (System.nanoTime() < deadline) {
            ZkServer leader = server(leader());
            if (done.test(leader.membership())) {
                return;
            }
            try {
                leader.changeMembership(change).get(CHANGE_TIMEOUT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
                return;
            } catch (java.util.concurrent.ExecutionException e) {
                Throwable cause = e.getCause();
                if (!(cause instanceof IllegalStateException || cause instanceof ZkException.ReconfigInProgress
                        || cause instanceof ZkException.NewConfigNoQuorum)) {
                    throw new IllegalStateException(change + ": " + cause, cause);
                }
                // not the leader (any more), another change pending, or not caught up yet: ask the leader again
                last = (RuntimeException) cause;
            } catch (java.util.concurrent.TimeoutException e) {
                last = new IllegalStateException("no answer within " + CHANGE_TIMEOUT.toSeconds() + " s");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted during " + change, e);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(10_000_000); // before asking the (new) leader again
        }
        throw new IllegalStateException(change + " not made within " + CHANGE_TIMEOUT.toSeconds() + " s: " + last);
    }

    private static void await(ZkServer server, java.util.function.Predicate<dev.zkr.tree.Txn.Membership> wanted,
                              String what) {
        try {
            server.awaitMembership(wanted).get(CHANGE_TIMEOUT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("not " + what + " within " + CHANGE_TIMEOUT.toSeconds() + " s: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for " + what, e);
        }
    }

    /** A running member other than server {@code except} (-1: any), the leader if it runs. */
    private ZkServer runningMember(int except) {
        ZkServer any = null;
        for (int i = 0; i < slots.size(); i++) {
            Slot s = slots.get(i);
            if (i != except && !s.removed && s.server != null) {
                if (s.server.isLeading()) {
                    return s.server;
                }
                any = any == null ? s.server : any;
            }
        }
        if (any == null) {
            throw new IllegalStateException("no running member");
        }
        return any;
    }

    /** Number of servers. */
    public int size() {
        return slots.size();
    }

    /** The port of server {@code i} (stable across restarts). */
    public int port(int i) {
        return slot(i).config.port();
    }

    /** The running server {@code i}; fails if it is stopped. */
    public ZkServer server(int i) {
        ZkServer s = slot(i).server;
        if (s == null) {
            throw new IllegalStateException("server " + i + " is not running");
        }
        return s;
    }

    /** True if server {@code i} runs. */
    public synchronized boolean isRunning(int i) {
        return slot(i).server != null;
    }

    /** The TLS material the servers use ({@link Builder#tls()}), or null for plaintext. */
    public TlsMaterial tlsMaterial() {
        return settings.tls;
    }

    /** The data directory of server {@code i}. */
    public Path dataDir(int i) {
        return slot(i).config.dataDir();
    }

    /** A connected native client with the default session timeout (5 s); closed with the ensemble. */
    public ZkClient newClient() {
        return newClient(settings.clientSessionTimeout);
    }

    /** A connected native client with this session timeout; closed with the ensemble. */
    public ZkClient newClient(Duration sessionTimeout) {
        Objects.requireNonNull(sessionTimeout, "sessionTimeout");
        return newClient(b -> b.sessionTimeout(sessionTimeout));
    }

    /** A connected native client configured by {@code customizer} (connect string preset); closed with the ensemble. */
    public ZkClient newClient(Consumer<ZkClientBuilder> customizer) {
        checkOpen();
        ZkClientBuilder b = ZkClient.builder().connectString(connectString())
                .sessionTimeout(settings.clientSessionTimeout)
                .connectTimeout(Duration.ofSeconds(10));
        if (settings.tls != null) {
            b.tls(settings.tls.clientTls());
        }
        customizer.accept(b);
        ZkClient client = b.build();
        clients.add(client);
        return client;
    }

    /**
     * Stops server {@code i} abruptly: its pipeline stops at once, its connections drop without a session close,
     * its files are closed (as close to a crash as a server in this JVM gets). Its sessions stay in its data.
     */
    public synchronized void kill(int i) {
        Slot s = slot(i);
        if (s.server == null) {
            throw new IllegalStateException("server " + i + " is not running");
        }
        s.server.kill();
        s.server = null;
    }

    /** Stops server {@code i} cleanly (finishes the batch in flight). */
    public synchronized void stop(int i) {
        Slot s = slot(i);
        if (s.server == null) {
            throw new IllegalStateException("server " + i + " is not running");
        }
        s.server.close();
        s.server = null;
    }

    /**
     * Starts server {@code i} again on the same port and data directory (stopping it abruptly first if it runs).
     * Retries while the port is still held for a few seconds, then fails with a clear message.
     */
    public synchronized void restart(int i) {
        checkOpen();
        Slot s = slot(i);
        if (s.removed) {
            throw new IllegalStateException("server " + i + " was removed from the membership");
        }
        if (s.server != null) {
            s.server.kill();
            s.server = null;
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            try {
                s.server = ZkServer.start(s.config, linkFilter);
                return;
            } catch (IllegalStateException e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("cannot restart server " + i + ": port " + s.config.port()
                            + " is still taken (" + e.getMessage() + ")", e);
                }
                try {
                    Thread.sleep(50); // waiting for the OS to release the port; nothing to poll
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while restarting server " + i, ie);
                }
            }
        }
    }

    /**
     * Makes the server expire this session now through its normal expiry path (a CloseSession txn deletes its
     * ephemerals and fires their watches; its connection is closed, so the client sees the session LOST).
     *
     * @throws IllegalArgumentException if no running server knows the session
     */
    public void expireSession(long sessionId) {
        for (Slot s : snapshotSlots()) {
            ZkServer server = s.server;
            if (server != null && server.expireSession(sessionId)) {
                return;
            }
        }
        throw new IllegalArgumentException("no running server knows session 0x" + Long.toHexString(sessionId));
    }

    private synchronized List<Slot> snapshotSlots() {
        return List.copyOf(slots);
    }

    /** Closes the clients handed out, stops every server and deletes the temporary directories. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (ZkClient c : clients) {
            try {
                c.close();
            } catch (RuntimeException e) {
                // a client of a dead server may fail to close its session; it is closed locally anyway
            }
        }
        clients.clear();
        for (Slot s : slots) {
            if (s.server != null) {
                s.server.close();
                s.server = null;
            }
        }
        if (deleteBaseDir) {
            deleteRecursively(baseDir);
        }
    }

    private Slot slot(int i) {
        if (i < 0 || i >= slots.size()) {
            throw new IndexOutOfBoundsException("server " + i + " (ensemble has " + slots.size() + ")");
        }
        return slots.get(i);
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("ensemble is closed");
        }
    }

    private static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }

    /** Settings of a {@link TestEnsemble}. */
    public static final class Builder {
        private int servers = 1;
        private Duration tickTime = Duration.ofMillis(100);
        private Duration minSessionTimeout = Duration.ofMillis(200);
        private Duration maxSessionTimeout = Duration.ofSeconds(60);
        private Duration clientSessionTimeout = Duration.ofSeconds(5);
        private Duration electionTimeout = Duration.ofMillis(1000);
        private int maxDataSize = ServerConfig.DEFAULT_MAX_DATA_SIZE;
        private Path baseDir;
        private Consumer<ServerConfig.Builder> configurer;
        private TlsMaterial tls;
        private String superDigest;

        private Builder() {
        }

        /**
         * TLS on every client port and (for an ensemble) peer port, with the JVM's shared throwaway material
         * ({@link TlsMaterial#shared()}); clients from {@link TestEnsemble#newClient()} trust its CA.
         */
        public Builder tls() {
            return tls(TlsMaterial.shared());
        }

        /** As {@link #tls()}, with this material (for tests that change its files). */
        public Builder tls(TlsMaterial material) {
            this.tls = Objects.requireNonNull(material, "material");
            return this;
        }

        /** Number of servers: 1 (standalone), 3 or 5 (a replicated ensemble). */
        public Builder servers(int n) {
            if (n != 1 && n != 3 && n != 5) {
                throw new IllegalArgumentException("servers must be 1, 3 or 5: " + n);
            }
            this.servers = n;
            return this;
        }

        /** Election timeout of an ensemble's servers (default 1 s; heartbeats every tenth of it). */
        public Builder electionTimeout(Duration timeout) {
            this.electionTimeout = Objects.requireNonNull(timeout, "electionTimeout");
            return this;
        }

        public Builder tickTime(Duration tick) {
            this.tickTime = Objects.requireNonNull(tick, "tickTime");
            return this;
        }

        public Builder minSessionTimeout(Duration timeout) {
            this.minSessionTimeout = Objects.requireNonNull(timeout, "minSessionTimeout");
            return this;
        }

        public Builder maxSessionTimeout(Duration timeout) {
            this.maxSessionTimeout = Objects.requireNonNull(timeout, "maxSessionTimeout");
            return this;
        }

        /** Session timeout of clients from {@link TestEnsemble#newClient()} (default 5 s). */
        public Builder clientSessionTimeout(Duration timeout) {
            this.clientSessionTimeout = Objects.requireNonNull(timeout, "clientSessionTimeout");
            return this;
        }

        public Builder maxDataSize(int bytes) {
            this.maxDataSize = bytes;
            return this;
        }

        /** Keep the servers' data under this directory (not deleted at close) instead of a temp directory. */
        public Builder baseDir(Path dir) {
            this.baseDir = Objects.requireNonNull(dir, "baseDir");
            return this;
        }

        /**
         * Every server's super user digest ({@code super:<base64 sha1>}, e.g.
         * {@code Acls.generateDigest("super:admin")}): a client authenticated as that digest passes every ACL.
         */
        public Builder superDigest(String digest) {
            this.superDigest = Objects.requireNonNull(digest, "superDigest");
            return this;
        }

        /** Further server settings, applied to every server's config builder. */
        public Builder configure(Consumer<ServerConfig.Builder> configurer) {
            this.configurer = configurer;
            return this;
        }

        /** Starts the servers (an ensemble's members in any order: they elect a leader among themselves). */
        public TestEnsemble start() {
            return new TestEnsemble(this);
        }
    }
}
