package dev.zkr.contract;

import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import dev.zkr.server.RawClient;
import dev.zkr.wire.Message;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * ZooKeeper's null data on a real server: a request with null data (what ZooKeeper's translation hands on for jute's
 * absent buffer) stores null, a read answers null with dataLength 0, and so it stays across a restart (log replay);
 * zkr's own client reads it as empty data, as before.
 */
class NullDataContractTest {

    @TempDir
    Path dir;

    @Test
    void nullDataIsKeptAndReadBackAsNull() {
        try (TestServer server = TestServer.start(dir)) {
            try (RawClient raw = RawClient.session(server.port(), 4000)) {
                assertEquals(0, raw.call(x -> new Message.CreateRequest(x, "/n", null, CreateMode.PERSISTENT)).code());
                assertEquals(0, raw.call(x -> new Message.CreateRequest(x, "/e", new byte[0], CreateMode.PERSISTENT))
                        .code());
                Message.DataBody n = (Message.DataBody) raw.call(x -> new Message.GetDataRequest(x, "/n", false)).body();
                assertNull(n.data());
                assertEquals(0, n.stat().dataLength());
                assertArrayEquals(new byte[0], ((Message.DataBody) raw.call(x -> new Message.GetDataRequest(x, "/e",
                        false)).body()).data(), "empty data stays empty");
                assertEquals(0, raw.call(x -> new Message.SetDataRequest(x, "/e", null, -1)).code());
            }
            ZkClient client = server.client();
            assertArrayEquals(new byte[0], client.getData("/n").data(), "zkr's client reads null as empty");
            server.kill();
            server.restart();
            try (RawClient raw = RawClient.session(server.port(), 4000)) {
                assertNull(((Message.DataBody) raw.call(x -> new Message.GetDataRequest(x, "/n", false)).body())
                        .data(), "after the log's replay");
                assertNull(((Message.DataBody) raw.call(x -> new Message.GetDataRequest(x, "/e", false)).body())
                        .data());
            }
        }
    }
}
