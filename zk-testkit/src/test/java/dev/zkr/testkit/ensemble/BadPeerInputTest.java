package dev.zkr.testkit.ensemble;

import dev.zkr.client.ZkClient;
import dev.zkr.server.ServerConfig;
import dev.zkr.server.peer.Hello;
import dev.zkr.server.peer.PeerBytes;
import dev.zkr.server.peer.PeerTransport;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

import static dev.zkr.testkit.ensemble.Ensembles.clientOf;
import static dev.zkr.testkit.ensemble.Ensembles.createRetrying;
import static dev.zkr.testkit.ensemble.Ensembles.others;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Garbage, an oversized length prefix, a frame whose body is cut short, a frame cut short by the end of the stream
 * and a Hello from another ensemble, each sent to the peer port of the leader and of a follower: the server closes
 * that connection, keeps running, and the ensemble keeps its quorum and commits writes sent through that server.
 */
@Timeout(120)
class BadPeerInputTest {

    @Test
    void badFramesOnAPeerPortCloseOnlyThatConnection() throws Exception {
        try (TestEnsemble e = TestEnsemble.builder().servers(3).start()) {
            int leader = e.leader();
            int follower = others(3, leader)[0];
            int n = 0;
            for (int target : new int[] {leader, follower}) {
                ZkClient through = clientOf(e, target);
                createRetrying(through, "/k-" + target, new byte[0]);
                for (Map.Entry<String, byte[]> input : inputs().entrySet()) {
                    sendAndExpectClose(peerAddress(e, target), input.getKey(), input.getValue());
                    assertTrue(e.isRunning(target) && e.server(target).isRunning(), "server " + target + " stopped");
                    createRetrying(through, "/k-" + target + "/after-" + n++, new byte[0]);
                }
                assertNotNull(through.exists("/k-" + target + "/after-" + (n - 1)));
            }
        }
    }

    private static Map<String, byte[]> inputs() {
        Map<String, byte[]> m = new LinkedHashMap<>();
        byte[] garbage = new byte[256];
        new SplittableRandom(13).nextBytes(garbage);
        m.put("garbage", garbage);
        m.put("oversized length prefix", ByteBuffer.allocate(12).putInt(0x7fff_fff0).putLong(42).array());
        byte[] hello = PeerBytes.encode(new Hello(PeerTransport.PROTOCOL_VERSION, 12345L, 2));
        m.put("frame with a truncated body", frame(Arrays.copyOf(hello, hello.length - 3)));
        m.put("frame cut short by the end of the stream",
                Arrays.copyOf(ByteBuffer.allocate(4).putInt(100).array(), 4 + 10));
        m.put("Hello from another ensemble", frame(hello));
        return m;
    }

    private static byte[] frame(byte[] body) {
        return ByteBuffer.allocate(4 + body.length).putInt(body.length).put(body).array();
    }

    private static InetSocketAddress peerAddress(TestEnsemble e, int i) {
        for (ServerConfig.Member m : e.server(i).config().members()) {
            if (m.id() == i + 1) {
                return m.peerAddress();
            }
        }
        throw new AssertionError("no member entry for server " + i);
    }

    /** Sends the bytes, ends the stream, and waits for the server to close the connection. */
    private static void sendAndExpectClose(InetSocketAddress peer, String what, byte[] bytes) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(peer, 5000);
            s.setSoTimeout((int) Ensembles.PATIENCE.toMillis());
            OutputStream out = s.getOutputStream();
            out.write(bytes);
            out.flush();
            s.shutdownOutput();
            InputStream in = s.getInputStream();
            try {
                while (in.read() >= 0) {
                    // a Hello answer would come only after a valid Hello; nothing else is expected
                }
            } catch (SocketException reset) {
                // closed with a reset: closed too
            } catch (SocketTimeoutException t) {
                fail(what + ": the server kept the peer connection open");
            }
        }
    }
}
