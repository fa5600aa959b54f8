package dev.zkr.samples.mapreduce;

import dev.zkr.apache.ApacheZkClient;
import dev.zkr.client.ZkClient;
import dev.zkr.testkit.TestEnsemble;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where the job's participants get their sessions, and how one of them dies. Each worker and master candidate has
 * its own client and session. {@link #crash} kills a participant's session the way a crashed process would lose it:
 * never with a clean session close, so its ephemeral nodes (group member, queue claims, latch node, barrier node)
 * go only when the server expires the session. On the embedded ensemble {@link #killServer} kills a server.
 */
public interface Cluster extends AutoCloseable {

    /** A new client with its own session. */
    ZkClient newClient(String name);

    /** Kills the client's session as a crash would: no clean close; the server expires it. */
    void crash(ZkClient client);

    /** One line for the output. */
    String description();

    /**
     * Kills a server of the ensemble abruptly (no clean stop: its connections drop, its pipeline stops where it is).
     *
     * @throws UnsupportedOperationException on external servers
     */
    KilledServer killServer(ServerKill.Role role);

    /** Starts a killed server again on its data directory and ports. */
    void restartServer(int index);

    /** Each server's role, for the output ({@code server 0 (id 1) FOLLOWER, ...}); empty on external servers. */
    String roles();

    /** Whose connections the server kill cut and whether they kept their sessions (one line); empty if no kill. */
    String disconnects();

    /**
     * A server killed by {@link #killServer}.
     *
     * @param index    its index in the ensemble (0-based)
     * @param serverId its server id
     * @param role     its role when it was killed
     * @param servers  servers in the ensemble
     * @param atNanos  {@link System#nanoTime()} right after the kill
     */
    record KilledServer(int index, int serverId, ServerKill.Role role, int servers, long atNanos) {
    }

    @Override
    void close();

    /** Election timeout of the embedded ensemble's servers. */
    Duration ELECTION_TIMEOUT = Duration.ofSeconds(1);

    /**
     * Session timeout of the participants on the embedded ensemble: at least 4 election timeouts, so that a failover
     * (detection, election, sync, reconnect) expires nobody.
     */
    Duration SESSION_TIMEOUT = Duration.ofSeconds(5);

    /**
     * A zkr ensemble of 3 servers in this JVM (zk-testkit, loopback, real fsync); a crash is an immediate
     * server-side session expiry.
     */
    static Cluster embedded() {
        return embedded(3);
    }

    /** An embedded zkr ensemble of 1, 3 or 5 servers. */
    static Cluster embedded(int servers) {
        if (SESSION_TIMEOUT.compareTo(ELECTION_TIMEOUT.multipliedBy(4)) < 0) {
            throw new IllegalStateException("session timeout below 4 election timeouts");
        }
        return new Embedded(TestEnsemble.builder().servers(servers).electionTimeout(ELECTION_TIMEOUT).start());
    }

    /**
     * External servers ({@code host:port,...}): zkr's native client, or Apache ZooKeeper through
     * {@link ApacheZkClient}. Every session goes through an in-JVM TCP relay so that a crash can cut its connection
     * without a session close; the servers then expire the session after its timeout.
     */
    static Cluster external(String connectString, boolean apache, Duration sessionTimeout) {
        return new External(connectString, apache, sessionTimeout);
    }

    /** The embedded ensemble. */
    final class Embedded implements Cluster {
        private final TestEnsemble ensemble;
        private final Disconnects disconnects = new Disconnects();
        private final AtomicInteger participants = new AtomicInteger();
        private volatile boolean serverKilled;

        Embedded(TestEnsemble ensemble) {
            this.ensemble = ensemble;
        }

        @Override
        public ZkClient newClient(String name) {
            ZkClient client = ensemble.newClient(b -> b.connectString(ensemble.connectString())
                    .sessionTimeout(SESSION_TIMEOUT).renewSessionOnExpiry(false));
            participants.incrementAndGet();
            client.addConnectionStateListener((c, state) -> disconnects.changed(name, state));
            return client;
        }

        @Override
        public void crash(ZkClient client) {
            // the leader decides session expiries; leader() waits for one while a failover is under way
            for (int attempt = 1; ; attempt++) {
                try {
                    if (!ensemble.server(ensemble.leader()).expireSession(client.sessionId())) {
                        ensemble.expireSession(client.sessionId());
                    }
                    break;
                } catch (IllegalStateException e) {
                    if (attempt == 3) {
                        throw e; // no leader for 10 s, three times over
                    }
                    // that leader was killed meanwhile (--kill-server): ask the next one
                }
            }
            client.close(); // the session is gone already: nothing is closed cleanly
        }

        @Override
        public String description() {
            int n = ensemble.size();
            if (n == 1) {
                return "embedded zkr ensemble (1 server, " + ensemble.connectString() + ")";
            }
            int leader = ensemble.leader();
            return String.format("embedded zkr ensemble (%d servers, %s; leader server %d (id %d), election timeout"
                    + " %d ms, session timeout %d s)", n, ensemble.connectString(), leader,
                    ensemble.server(leader).serverId(), ELECTION_TIMEOUT.toMillis(), SESSION_TIMEOUT.toSeconds());
        }

        @Override
        public KilledServer killServer(ServerKill.Role role) {
            if (ensemble.size() < 3) {
                throw new UnsupportedOperationException("--kill-server needs an ensemble of 3 or more servers");
            }
            int leader = ensemble.leader();
            int victim = leader;
            if (role == ServerKill.Role.FOLLOWER) {
                victim = -1;
                for (int i = 0; i < ensemble.size() && victim < 0; i++) {
                    if (i != leader && ensemble.isRunning(i)) {
                        victim = i;
                    }
                }
            }
            int id = ensemble.server(victim).serverId();
            disconnects.arm();
            serverKilled = true;
            ensemble.kill(victim);
            return new KilledServer(victim, id, role, ensemble.size(), System.nanoTime());
        }

        @Override
        public void restartServer(int index) {
            ensemble.restart(index);
        }

        @Override
        public String disconnects() {
            return serverKilled ? disconnects.summary(participants.get()) : "";
        }

        @Override
        public String roles() {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < ensemble.size(); i++) {
                b.append(b.length() == 0 ? "" : ", ").append("server ").append(i);
                if (ensemble.isRunning(i)) {
                    var s = ensemble.server(i);
                    b.append(" (id ").append(s.serverId()).append(") ").append(s.role());
                } else {
                    b.append(" down");
                }
            }
            return b.toString();
        }

        @Override
        public void close() {
            ensemble.close();
        }
    }

    /** External servers, every session through its own relays. */
    final class External implements Cluster {
        private final String connectString;
        private final boolean apache;
        private final Duration sessionTimeout;
        private final Map<ZkClient, List<Relay>> relays = new ConcurrentHashMap<>();

        External(String connectString, boolean apache, Duration sessionTimeout) {
            this.connectString = connectString;
            this.apache = apache;
            this.sessionTimeout = sessionTimeout;
        }

        @Override
        public ZkClient newClient(String name) {
            List<Relay> mine = new ArrayList<>();
            StringBuilder via = new StringBuilder();
            for (String hostPort : connectString.split(",")) {
                int colon = hostPort.lastIndexOf(':');
                if (colon < 0) {
                    throw new IllegalArgumentException("expected host:port in --connect, got '" + hostPort + "'");
                }
                Relay r = Relay.start(hostPort.substring(0, colon).trim(),
                        Integer.parseInt(hostPort.substring(colon + 1).trim()));
                mine.add(r);
                via.append(via.length() == 0 ? "" : ",").append("127.0.0.1:").append(r.port());
            }
            ZkClient client;
            try {
                client = apache
                        ? ApacheZkClient.builder().connectString(via.toString()).sessionTimeout(sessionTimeout)
                                .renewSessionOnExpiry(false).build()
                        : ZkClient.builder().connectString(via.toString()).sessionTimeout(sessionTimeout)
                                .renewSessionOnExpiry(false).build();
            } catch (RuntimeException e) {
                mine.forEach(Relay::close);
                throw e;
            }
            relays.put(client, mine);
            return client;
        }

        @Override
        public void crash(ZkClient client) {
            List<Relay> mine = relays.get(client);
            if (mine != null) {
                mine.forEach(Relay::close); // the connection drops; no close-session request ever reaches a server
            }
            Thread closer = new Thread(client::close, "close-crashed-client"); // a dead client may wait to close
            closer.setDaemon(true);
            closer.start();
        }

        @Override
        public String description() {
            return (apache ? "Apache ZooKeeper" : "zkr") + " servers at " + connectString;
        }

        @Override
        public KilledServer killServer(ServerKill.Role role) {
            throw new UnsupportedOperationException("--kill-server needs the embedded ensemble");
        }

        @Override
        public void restartServer(int index) {
            throw new UnsupportedOperationException("--kill-server needs the embedded ensemble");
        }

        @Override
        public String roles() {
            return "";
        }

        @Override
        public String disconnects() {
            return "";
        }

        @Override
        public void close() {
            for (Map.Entry<ZkClient, List<Relay>> e : relays.entrySet()) {
                try {
                    e.getKey().close();
                } catch (RuntimeException ignored) {
                    // closed or crashed already
                }
                e.getValue().forEach(Relay::close);
            }
            relays.clear();
        }
    }
}
