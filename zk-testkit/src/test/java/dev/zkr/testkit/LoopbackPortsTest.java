package dev.zkr.testkit;

import dev.zkr.server.ServerConfig;
import dev.zkr.server.ZkServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The test servers' ports: below the ephemeral range, distinct, free; a lost bind race is recognised. */
class LoopbackPortsTest {

    @TempDir
    Path dir;

    private static boolean inRange(int port) {
        return port >= LoopbackPorts.LOW_PORT && port < LoopbackPorts.HIGH_PORT;
    }

    @Test
    void portsAreDistinctAndBelowTheEphemeralRange() {
        int[] ports = LoopbackPorts.take(10);
        assertEquals(10, Arrays.stream(ports).distinct().count(), Arrays.toString(ports));
        assertTrue(Arrays.stream(ports).allMatch(LoopbackPortsTest::inRange), Arrays.toString(ports));
    }

    @Test
    void aPortSomeoneHoldsIsSkipped() throws IOException {
        int last = LoopbackPorts.take(1)[0];
        int next = last + 1; // handed out in turn
        assumeTrue(inRange(next), "the turn wraps here");
        try (ServerSocket held = new ServerSocket()) {
            held.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), next), 1);
            int got = LoopbackPorts.take(1)[0];
            assertNotEquals(next, got);
            assertTrue(inRange(got), String.valueOf(got));
        } catch (IOException takenAlready) {
            assumeTrue(false, "port " + next + " is taken by another process");
        }
    }

    @Test
    void ensembleAndStandaloneServersUseSuchPorts() {
        try (TestEnsemble one = TestEnsemble.builder().start();
             TestEnsemble three = TestEnsemble.builder().servers(3).start()) {
            assertTrue(inRange(one.port(0)), one.connectString());
            for (int i = 0; i < 3; i++) {
                assertTrue(inRange(three.port(i)), three.connectString());
            }
            one.newClient().create("/x", new byte[0], dev.zkr.client.CreateMode.PERSISTENT);
            three.newClient().create("/x", new byte[0], dev.zkr.client.CreateMode.PERSISTENT);
        }
    }

    /**
     * A server that loses its client port or its peer port to another process fails with an unchecked exception
     * (after releasing what it started) whose cause is recognised as a bind failure.
     */
    @Test
    void aTakenClientOrPeerPortIsABindFailure() throws IOException {
        int[] ports = LoopbackPorts.take(4);
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), ports[0]), 1);
            IllegalStateException client = assertThrows(IllegalStateException.class, () -> ZkServer.start(
                    ServerConfig.builder(dir.resolve("standalone")).port(ports[0]).build()).close());
            assertTrue(LoopbackPorts.bindFailure(client), client.toString());

            String host = InetAddress.getLoopbackAddress().getHostAddress();
            List<ServerConfig.Member> members = List.of(new ServerConfig.Member(1, host, ports[0], ports[1]),
                    new ServerConfig.Member(2, host, ports[2], ports[3]), new ServerConfig.Member(3, host,
                            LoopbackPorts.take(1)[0], LoopbackPorts.take(1)[0]));
            IllegalStateException peer = assertThrows(IllegalStateException.class, () -> ZkServer.start(
                    ServerConfig.builder(dir.resolve("member")).serverId(1).port(ports[1]).members(members)
                            .build()).close());
            assertTrue(LoopbackPorts.bindFailure(peer), peer.toString());
        }
        assertFalse(LoopbackPorts.bindFailure(new IllegalStateException("no", new IOException("other"))));
    }
}
