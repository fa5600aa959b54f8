package dev.zkr.testkit.ensemble;

import dev.zkr.client.ZkClient;
import dev.zkr.server.ServerConfig;
import dev.zkr.server.peer.Hello;
import dev.zkr.server.peer.PeerBytes;
import dev.zkr.server.peer.PeerTransport;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import static dev.zkr.testkit.ensemble.Ensembles.clientOf;
import static dev.zkr.testkit.ensemble.Ensembles.createRetrying;
import static dev.zkr.testkit.ensemble.Ensembles.others;
import static dev.zkr.testkit.ensemble.Ensembles.syncedRead;
import static dev.zkr.testkit.ensemble.RawSockets.frame;
import static dev.zkr.testkit.ensemble.RawSockets.sendAndExpectClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Three servers with TLS on the client and peer ports (mutual TLS between members): they elect a leader, replicate
 * a write made through a follower to every member, elect again after the leader is killed; a plaintext Hello and
 * garbage on a TLS peer port close only that connection.
 */
@Timeout(120)
class TlsEnsembleTest {

    @Test
    void anEnsembleWithTlsOnThePeerPortElectsReplicatesAndRefusesPlaintextPeers() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).tls().start()) {
            int leader = e.leader();
            int follower = others(3, leader)[0];
            ZkClient c = clientOf(e, follower); // its writes are forwarded to the leader over the peer port
            byte[] data = "over tls".getBytes(StandardCharsets.UTF_8);
            createRetrying(c, "/tls", data);
            for (int i = 0; i < 3; i++) {
                assertArrayEquals(data, syncedRead(e, i, "/tls").data(), "server " + i);
            }

            byte[] garbage = new byte[300];
            new Random(5).nextBytes(garbage);
            garbage[0] = 0x42;
            byte[] plaintextHello = frame(PeerBytes.encode(new Hello(PeerTransport.PROTOCOL_VERSION, 1L, 2)));
            for (byte[] bad : new byte[][] {garbage, plaintextHello}) {
                sendAndExpectClose(peerAddress(e, leader), null, "plaintext on a TLS peer port", bad);
                assertTrue(e.server(leader).isRunning());
            }
            createRetrying(c, "/tls/after-plaintext", data);

            e.kill(leader);
            int next = Ensembles.leaderAmong(e, others(3, leader));
            ZkClient survivor = clientOf(e, next);
            createRetrying(survivor, "/tls/after-failover", data);
            for (int i : others(3, leader)) {
                assertNotNull(syncedRead(e, i, "/tls/after-failover"), "server " + i);
            }
        }
    }

    private static InetSocketAddress peerAddress(TestEnsemble e, int i) {
        for (ServerConfig.Member m : e.server(i).config().members()) {
            if (m.id() == i + 1) {
                return m.peerAddress();
            }
        }
        throw new AssertionError("no member entry for server " + i);
    }
}
