package dev.zkr.server.zookeeper;

import dev.zkr.server.ServerFixture;
import dev.zkr.server.StderrCapture;
import dev.zkr.server.ZkServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.proto.GetDataRequest;
import org.apache.zookeeper.proto.GetDataResponse;
import org.apache.zookeeper.proto.ReplyHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad input on a ZooKeeper-protocol connection of a real server: ZooKeeper's answer where it has one (an unknown
 * opcode is UNIMPLEMENTED and the close; a record that does not decode is MARSHALLINGERROR, the connection kept),
 * otherwise the connection is closed with one WARN line. Meanwhile a well-behaved Apache client on the same server is
 * served before, during and after.
 */
@Timeout(120)
class ZooKeeperPortBadInputTest {

    private static final int MAX_DATA = 4096;

    @TempDir
    Path dir;
    ZkServer server;
    ZooKeeper good;
    int counter;

    @BeforeEach
    void start() {
        server = ZkServer.start(ServerFixture.config(dir).maxDataSize(MAX_DATA)
                .handshakeTimeout(Duration.ofSeconds(60)).build());
        good = ApacheClients.connect(server.connectString(), 10_000, new ApacheClients.Events());
        assertGoodClientServed();
    }

    @AfterEach
    void stop() throws InterruptedException {
        assertGoodClientServed();
        good.close(5_000);
        server.close();
    }

    private void assertGoodClientServed() {
        String path = "/good" + counter++;
        try {
            good.create(path, new byte[] {1}, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            assertArrayEquals(new byte[] {1}, good.getData(path, false, null));
        } catch (Exception e) {
            throw new AssertionError("the well-behaved client was not served", e);
        }
    }

    /** Misbehaves on a raw connection; the server closes it with exactly one WARN line, the good client is served. */
    private void closedWithOneWarning(Consumer<ZkSocket> misbehave) {
        String log;
        try (StderrCapture err = new StderrCapture(); ZkSocket bad = new ZkSocket(server.port())) {
            misbehave.accept(bad);
            assertGoodClientServed();
            assertTrue(bad.closedByServer(), "the server kept the bad connection");
            ApacheClients.await("the WARN line", () -> err.text().contains("closing connection from"));
            log = err.text();
        }
        long lines = Arrays.stream(log.split("\n"))
                .filter(l -> l.contains("WARN") && l.contains("closing connection from")).count();
        assertEquals(1, lines, "WARN lines about the bad connection:\n" + log);
    }

    @Test
    void aFirstFrameThatIsNoConnectRequestIsClosed() {
        closedWithOneWarning(bad -> bad.sendFrame(new byte[] {0, 0, 0, 0, 7, 7}));
    }

    @Test
    void aRequestBeforeTheHandshakeIsClosed() {
        closedWithOneWarning(bad -> bad.request(1, OpCode.GET_DATA, new GetDataRequest("/", false)));
    }

    @Test
    void anOversizedFirstLengthIsClosed() {
        // 0x00ffffff: byte 0 is 0 and byte 4 (the frame's first) 0, so ZooKeeper's; far over the frame limit
        closedWithOneWarning(bad -> bad.send(new byte[] {0, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0, 0, 0, 0}));
    }

    @Test
    void anOversizedLengthAfterTheHandshakeIsClosed() {
        closedWithOneWarning(bad -> {
            bad.handshake();
            bad.send(new byte[] {0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff, 1, 2, 3});
        });
    }

    @Test
    void aNegativeLengthAfterTheHandshakeIsClosed() {
        closedWithOneWarning(bad -> {
            bad.handshake();
            bad.send(new byte[] {(byte) 0x80, 0, 0, 1});
        });
    }

    @Test
    void aFrameTooShortForItsHeaderIsClosed() {
        closedWithOneWarning(bad -> {
            bad.handshake();
            bad.sendFrame(new byte[] {1, 2, 3});
        });
    }

    @Test
    void garbageAfterTheHandshakeIsClosed() {
        closedWithOneWarning(bad -> {
            bad.handshake();
            byte[] garbage = new byte[512];
            new Random(42).nextBytes(garbage);
            garbage[0] = 0; // a length within bounds, so the garbage is read as frames
            garbage[1] = 0;
            garbage[2] = 0;
            garbage[3] = 2;
            bad.send(garbage);
        });
    }

    @Test
    void anUnknownOpcodeIsAnsweredUnimplementedThenClosed() {
        try (ZkSocket bad = new ZkSocket(server.port())) {
            bad.handshake();
            bad.request(5, 999, null);
            ReplyHeader h = bad.reply(null);
            assertEquals(5, h.getXid());
            assertEquals(ErrorCodes.UNIMPLEMENTED, h.getErr());
            assertTrue(bad.closedByServer(), "ZooKeeper closes the connection after UNIMPLEMENTED");
        }
    }

    @Test
    void aRecordThatDoesNotDecodeIsAnsweredAndTheConnectionKept() {
        try (ZkSocket bad = new ZkSocket(server.port())) {
            bad.handshake();
            byte[] header = ApacheWire.bytes(new org.apache.zookeeper.proto.RequestHeader(1, OpCode.GET_DATA));
            bad.sendFrame(Arrays.copyOf(header, header.length + 2)); // a path length cut short
            assertEquals(ErrorCodes.MARSHALLING_ERROR, bad.reply(null).getErr());
            bad.request(2, OpCode.GET_DATA, new GetDataRequest("/", false));
            GetDataResponse data = new GetDataResponse();
            ReplyHeader h = bad.reply(data);
            assertEquals(2, h.getXid());
            assertEquals(0, h.getErr());
        }
    }
}
