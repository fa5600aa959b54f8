package dev.zkr.server;

import dev.zkr.client.CreateMode;
import dev.zkr.client.Op;
import dev.zkr.client.OpResult;
import dev.zkr.client.ZkClient;
import dev.zkr.client.ZkException;
import dev.zkr.wire.Message;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Issue 10: the per-host connection limit and the up-front refusal of a write too large for one log record. */
class ServerLimitsTest {

    @TempDir
    Path dir;
    private ZkServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void oneHostCannotOpenMoreThanMaxConnectionsPerHost() {
        server = ZkServer.start(ServerFixture.config(dir).maxConnectionsPerHost(3).build());
        List<RawClient> open = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                open.add(RawClient.session(server.port(), 5000));
            }
            try (RawClient fourth = new RawClient(server.port())) {
                assertEquals(List.of(), fourth.readUntilClosed(10_000), "closed on accept, nothing sent");
            }
            for (RawClient c : open) { // the three still work
                assertEquals(0, c.call(x -> new Message.ExistsRequest(x, "/", false)).code());
            }
            open.remove(0).close();
            ServerFixture.await("a slot to free up", Duration.ofSeconds(10), () -> {
                try (RawClient again = RawClient.session(server.port(), 5000)) {
                    return again.call(x -> new Message.ExistsRequest(x, "/", false)).code() == 0;
                } catch (AssertionError | RuntimeException refused) {
                    return false;
                }
            });
        } finally {
            open.forEach(RawClient::close);
        }
    }

    @Test
    void aMultiThatCouldOutgrowALogRecordIsRefusedWithATypedErrorAndTheConnectionStays() {
        server = ZkServer.start(ServerFixture.config(dir).maxTxnBytes(64 * 1024).build());
        try (ZkClient c = ZkClient.connect(server.connectString(), Duration.ofSeconds(10))) {
            c.create("/m", new byte[0], CreateMode.PERSISTENT);
            List<Op> ops = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                ops.add(Op.create("/m/n" + i, new byte[1024], CreateMode.PERSISTENT));
            }
            ZkException.TxnTooLarge e = assertThrows(ZkException.TxnTooLarge.class, () -> c.multi(ops));
            assertTrue(e.getMessage().contains("split it"), e.getMessage());
            assertEquals(new OpResult.ErrorResult(ZkException.Code.TXN_TOO_LARGE), e.multiResults().get(0));
            assertNull(c.exists("/m/n0"));
            assertEquals(10, c.multi(ops.subList(0, 10)).size()); // same connection, a smaller multi passes
        }
    }
}
