package dev.zkr.server;

import dev.zkr.client.CreateMode;
import dev.zkr.storage.LogReader;
import dev.zkr.storage.LogRecord;
import dev.zkr.storage.TxnLog;
import dev.zkr.tree.LegacyPayloads;
import dev.zkr.tree.Txn;
import dev.zkr.tree.TxnCodec;
import dev.zkr.tree.TxnHeader;
import dev.zkr.consensus.Zxid;
import dev.zkr.wire.Message;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Txn headers name the client request, and a data directory written before they did still recovers. */
class LogFormatCompatTest {

    @TempDir
    Path dir;

    @Test
    void aLogWrittenInFormat1StillRecovers() throws IOException {
        try (TxnLog log = TxnLog.open(dir.resolve("log"))) {
            log.append(1, LegacyPayloads.create(1, 1_000, 0, "/legacy", "old".getBytes(StandardCharsets.UTF_8), 1));
            log.append(2, LegacyPayloads.setData(2, 2_000, 0, "/legacy", "older".getBytes(StandardCharsets.UTF_8), 1));
        }
        try (ZkServer server = ZkServer.start(ServerFixture.config(dir).build());
             RawClient c = RawClient.session(server.port(), 5000)) {
            Message.Reply read = c.call(x -> new Message.GetDataRequest(x, "/legacy", false));
            assertEquals(0, read.code());
            Message.DataBody body = (Message.DataBody) read.body();
            assertArrayEquals("older".getBytes(StandardCharsets.UTF_8), body.data());
            assertEquals(1, body.stat().version());
            assertEquals(1, body.stat().czxid());
            assertEquals(2, body.stat().mzxid());
            Message.Reply created = c.call(x -> new Message.CreateRequest(x, "/new", new byte[0],
                    CreateMode.PERSISTENT));
            assertEquals(0, created.code());
            // the server led epoch 1 (its EPOCH record at (1,0)); the session's CreateSession took (1,1), above every
            // plain-counter zxid
            assertEquals(Zxid.of(1, 2), ((Message.CreateBody) created.body()).stat().czxid());
        }
        try (ZkServer server = ZkServer.start(ServerFixture.config(dir).build());
             RawClient c = RawClient.session(server.port(), 5000)) {
            Message.Reply created = c.call(x -> new Message.CreateRequest(x, "/newer", new byte[0],
                    CreateMode.PERSISTENT));
            assertEquals(Zxid.of(2, 2), ((Message.CreateBody) created.body()).stat().czxid(),
                    "a restart leads the next epoch");
        }
    }

    @Test
    void txnHeadersCarryTheSessionAndXidOfTheRequest() {
        long sessionId;
        int xid;
        int closeXid;
        try (ZkServer server = ZkServer.start(ServerFixture.config(dir).build());
             RawClient c = RawClient.session(server.port(), 5000)) {
            sessionId = c.sessionId;
            int[] sent = new int[1];
            Message.Reply created = c.call(x -> {
                sent[0] = x;
                return new Message.CreateRequest(x, "/named", new byte[0], CreateMode.PERSISTENT);
            });
            assertEquals(0, created.code());
            xid = sent[0];
            Message.Reply closed = c.call(x -> {
                sent[0] = x;
                return new Message.CloseSessionRequest(x);
            });
            assertEquals(0, closed.code());
            closeXid = sent[0];
        }
        List<TxnHeader> headers = new ArrayList<>();
        try (TxnLog log = TxnLog.open(dir.resolve("log")); LogReader r = log.read(0)) {
            while (r.hasNext()) {
                LogRecord rec = r.next();
                TxnCodec.Entry e = TxnCodec.decode(rec.payload());
                if (!(e.txn() instanceof Txn.NewEpoch)) { // the server's EPOCH record names no request
                    headers.add(e.header());
                }
            }
        }
        // CreateSession (made by the server for the handshake), the create, the client's CloseSession
        assertEquals(3, headers.size(), headers.toString());
        assertEquals(sessionId, headers.get(0).sessionId());
        assertEquals(TxnHeader.NO_XID, headers.get(0).xid());
        assertEquals(sessionId, headers.get(1).sessionId());
        assertEquals(xid, headers.get(1).xid());
        assertEquals(sessionId, headers.get(2).sessionId());
        assertEquals(closeXid, headers.get(2).xid());
    }
}
