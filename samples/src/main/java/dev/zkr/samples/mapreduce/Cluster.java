package dev.zkr.samples.mapreduce;

import dev.zkr.apache.ApacheZkClient;
import dev.zkr.client.ZkClient;
import dev.zkr.testkit.TestEnsemble;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where the job's participants get their sessions, and how one of them dies. Each worker and master candidate has
 * its own client and session. {@link #crash} kills a participant's session the way a crashed process would lose it:
 * never with a clean session close, so its ephemeral nodes (group member, queue claims, latch node, barrier node)
 * go only when the server expires the session.
 */
public interface Cluster extends AutoCloseable {

    /** A new client with its own session. */
    ZkClient newClient(String name);

    /** Kills the client's session as a crash would: no clean close; the server expires it. */
    void crash(ZkClient client);

    /** One line for the output. */
    String description();

    @Override
    void close();

    /** A one-server zkr ensemble in this JVM (zk-testkit); a crash is an immediate server-side session expiry. */
    static Cluster embedded() {
        return new Embedded(TestEnsemble.builder().servers(1).start());
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

        Embedded(TestEnsemble ensemble) {
            this.ensemble = ensemble;
        }

        @Override
        public ZkClient newClient(String name) {
            return ensemble.newClient(b -> b.sessionTimeout(Duration.ofSeconds(5)).renewSessionOnExpiry(false));
        }

        @Override
        public void crash(ZkClient client) {
            ensemble.expireSession(client.sessionId());
            client.close(); // the session is gone already: nothing is closed cleanly
        }

        @Override
        public String description() {
            return "embedded zkr ensemble (1 server, " + ensemble.connectString() + ")";
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
