package dev.zkr.server;

import dev.zkr.server.replication.ReplicaDriver;
import dev.zkr.client.CreateMode;
import dev.zkr.consensus.ConsensusViolation;
import dev.zkr.storage.ConsensusMeta;
import dev.zkr.storage.ConsensusMetaException;
import dev.zkr.storage.LogReader;
import dev.zkr.storage.LogRecord;
import dev.zkr.storage.TxnLog;
import dev.zkr.tree.Txn;
import dev.zkr.tree.TxnCodec;
import dev.zkr.tree.TxnHeader;
import dev.zkr.consensus.Zxid;
import dev.zkr.wire.Message;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A standalone server runs as a single-member replica ({@link ReplicaDriver}): it elects itself (its vote durable
 * in consensus.meta first), logs an EPOCH record per start, commits on local durability, carries the commit mark on
 * its batches and, at restart, applies the log up to the mark and commits the rest with its new EPOCH record.
 */
class StandaloneReplicaTest {

    @TempDir
    Path dir;

    private static List<TxnCodec.Entry> logged(Path dataDir) {
        List<TxnCodec.Entry> out = new ArrayList<>();
        try (TxnLog log = TxnLog.open(dataDir.resolve("log")); LogReader r = log.read(log.startsAfterZxid())) {
            while (r.hasNext()) {
                LogRecord rec = r.next();
                out.add(TxnCodec.decode(rec.payload()));
            }
        }
        return out;
    }

    private static long create(RawClient c, String path) {
        Message.Reply reply = c.call(x -> new Message.CreateRequest(x, path, new byte[0], CreateMode.PERSISTENT));
        assertEquals(0, reply.code(), "create " + path);
        return ((Message.CreateBody) reply.body()).stat().czxid();
    }

    @Test
    void eachStartLeadsTheNextEpochAndLogsItsEpochRecordFirst() {
        ServerConfig config = ServerFixture.config(dir).serverId(3).build();
        try (ZkServer server = ZkServer.start(config); RawClient c = RawClient.session(server.port(), 5000)) {
            assertEquals(Zxid.of(1, 2), create(c, "/one"));
        }
        ConsensusMeta meta = ConsensusMeta.load(dir).orElseThrow();
        assertEquals(1, meta.acceptedEpoch());
        assertEquals(3, meta.votedFor(), "voted for itself");
        assertEquals(3, meta.serverId());
        try (ZkServer server = ZkServer.start(config); RawClient c = RawClient.session(server.port(), 5000)) {
            assertEquals(Zxid.of(2, 2), create(c, "/two"));
            assertEquals(Zxid.of(2, 2), server.lastZxid());
        }
        assertEquals(2, ConsensusMeta.load(dir).orElseThrow().acceptedEpoch());

        List<TxnCodec.Entry> log = logged(dir);
        assertEquals(new Txn.NewEpoch(1, 3), log.get(0).txn());
        assertEquals(Zxid.of(1, 0), log.get(0).header().zxid());
        List<Long> epochRecords = log.stream().filter(e -> e.txn() instanceof Txn.NewEpoch)
                .map(e -> e.header().zxid()).toList();
        assertEquals(List.of(Zxid.of(1, 0), Zxid.of(2, 0)), epochRecords);
    }

    @Test
    void theCommitMarkRidesOnTheNextBatch() {
        List<Long> acked = new ArrayList<>();
        try (ZkServer server = ZkServer.start(ServerFixture.config(dir).build());
             RawClient c = RawClient.session(server.port(), 5000)) {
            for (int i = 0; i < 5; i++) {
                acked.add(create(c, "/n" + i));
            }
        }
        try (TxnLog log = TxnLog.open(dir.resolve("log"))) {
            // one write per batch: each batch carries the commit point the batch before it reached
            assertTrue(log.commitMarkAtOpen() >= acked.get(acked.size() - 2),
                    "mark " + Zxid.str(log.commitMarkAtOpen()));
            assertTrue(log.commitMarkAtOpen() <= log.lastZxid());
        }
    }

    @Test
    void recoveryAppliesUpToTheCommitMarkAndTheEpochRecordCommitsTheTail() throws IOException {
        try (ZkServer server = ZkServer.start(ServerFixture.config(dir).build());
             RawClient c = RawClient.session(server.port(), 5000)) {
            create(c, "/committed");
        }
        // records logged after the mark, as a crash before the next batch leaves them: known durable, not known
        // committed
        long last;
        long mark;
        try (TxnLog log = TxnLog.open(dir.resolve("log"))) {
            mark = log.commitMarkAtOpen();
            last = log.lastZxid();
            for (int i = 0; i < 3; i++) {
                long zxid = ++last;
                log.append(zxid, TxnCodec.encode(new TxnHeader(zxid, 1_000 + i, 0, TxnHeader.NO_XID),
                        new Txn.CreateNode("/tail" + i, ("t" + i).getBytes(StandardCharsets.UTF_8), 0, false, 0)));
            }
            log.sync().join();
        }
        assertTrue(mark < last - 2, "the appended records are above the mark");
        try (ZkServer server = ZkServer.start(ServerFixture.config(dir).build());
             RawClient c = RawClient.session(server.port(), 5000)) {
            // the server serves only once its EPOCH record committed the tail: the first read sees it
            Message.Reply read = c.call(x -> new Message.GetDataRequest(x, "/tail2", false));
            assertEquals(0, read.code());
            assertArrayEquals("t2".getBytes(StandardCharsets.UTF_8), ((Message.DataBody) read.body()).data());
            assertTrue(server.lastZxid() > last, "the EPOCH record after the tail is applied");
            assertEquals(0, c.call(x -> new Message.ExistsRequest(x, "/committed", false)).code());
        }
        List<TxnCodec.Entry> log = logged(dir);
        int tail2 = -1;
        for (int i = 0; i < log.size(); i++) {
            if (log.get(i).txn() instanceof Txn.CreateNode cn && cn.path().equals("/tail2")) {
                tail2 = i;
            }
        }
        assertInstanceOf(Txn.NewEpoch.class, log.get(tail2 + 1).txn(), "the next EPOCH record follows the tail");
    }

    @Test
    void aDataDirectoryWithoutMetaFromBeforeReplicationStarts() throws IOException {
        try (ZkServer server = ZkServer.start(ServerFixture.config(dir).build());
             RawClient c = RawClient.session(server.port(), 5000)) {
            create(c, "/kept");
        }
        Files.delete(dir.resolve(ConsensusMeta.FILE));
        try (ZkServer server = ZkServer.start(ServerFixture.config(dir).build());
             RawClient c = RawClient.session(server.port(), 5000)) {
            assertEquals(0, c.call(x -> new Message.ExistsRequest(x, "/kept", false)).code());
            assertEquals(Zxid.of(2, 2), create(c, "/after"), "accepted epoch taken from the log: 1, leads 2");
        }
    }

    @Test
    void aDamagedMetaRefusesToStart() throws IOException {
        try (ZkServer server = ZkServer.start(ServerFixture.config(dir).build())) {
            assertTrue(server.isRunning());
        }
        byte[] bytes = Files.readAllBytes(dir.resolve(ConsensusMeta.FILE));
        bytes[10] ^= 0x40;
        Files.write(dir.resolve(ConsensusMeta.FILE), bytes);
        assertThrows(ConsensusMetaException.class, () -> ZkServer.start(ServerFixture.config(dir).build()));
    }

    @Test
    void aMetaBehindTheLogRefusesToStart() {
        try (ZkServer server = ZkServer.start(ServerFixture.config(dir).build())) {
            assertTrue(server.isRunning());
        }
        try (ZkServer server = ZkServer.start(ServerFixture.config(dir).build())) {
            assertTrue(server.isRunning()); // log now ends in epoch 2
        }
        new ConsensusMeta(1, 0, List.of(0).hashCode(), 0).store(dir);
        assertThrows(ConsensusViolation.class, () -> ZkServer.start(ServerFixture.config(dir).build()));
    }

    @Test
    void theQuorumOfOneFastPathContinuesItsEpoch() {
        System.setProperty(Assembler.QUORUM_PROPERTY, "one");
        try {
            for (int start = 0; start < 2; start++) {
                try (ZkServer server = ZkServer.start(ServerFixture.config(dir).build());
                     RawClient c = RawClient.session(server.port(), 5000)) {
                    assertEquals(Zxid.of(1, 2 + 2L * start), create(c, "/fast" + start));
                }
            }
            assertFalse(Files.exists(dir.resolve(ConsensusMeta.FILE)));
            assertTrue(logged(dir).stream().noneMatch(e -> e.txn() instanceof Txn.NewEpoch));
        } finally {
            System.clearProperty(Assembler.QUORUM_PROPERTY);
        }
    }
}
