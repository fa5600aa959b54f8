package dev.zkr.migrate;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.server.DataTree;
import org.apache.zookeeper.server.Request;
import org.apache.zookeeper.server.persistence.FileSnap;
import org.apache.zookeeper.server.persistence.FileTxnLog;
import org.apache.zookeeper.server.persistence.FileTxnSnapLog;
import org.apache.zookeeper.server.persistence.TxnLog;
import org.apache.zookeeper.txn.SetDataTxn;
import org.apache.zookeeper.txn.TxnDigest;
import org.apache.zookeeper.txn.TxnHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ZooKeeper 3.9 data whose tree digests (ZooKeeper 3.6+ writes one into each snapshot and each logged txn) do not
 * match the tree: the import refuses it with a message naming the damaged file kind and writes nothing. A byte
 * flipped in a snapshot file with nothing else fixed is caught earlier, by the snapshot's checksum.
 */
class DigestMismatchTest {
    private static final byte[] VICTIM = "victim data".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path tmp;
    private final ZkClients clients = new ZkClients();

    @BeforeAll
    static void smallSnapCount() {
        org.apache.zookeeper.server.SyncRequestProcessor.setSnapCount(40); // as ZooKeeperMigrationTest
    }

    @AfterEach
    void closeAll() throws Exception {
        clients.close();
    }

    @Test
    void aLoggedTxnWhoseDigestDoesNotMatchTheTreeIsRefused() throws Exception {
        Path zkDir = zooKeeperData();
        Path v2 = zkDir.resolve("version-2");
        // one more txn at the end of the log, as ZooKeeper would log it (its own FileTxnLog: record CRC intact), but
        // carrying a tree digest that is not the tree's after it
        FileTxnLog log = new FileTxnLog(v2.toFile());
        long last = log.getLastLoggedZxid();
        TxnDigest real = lastDigest(v2, last);
        assertNotNull(real, "ZooKeeper 3.9 logs a digest with each txn");
        TxnHeader hdr = new TxnHeader(0x1234L, 99, last + 1, System.currentTimeMillis(), ZooDefs.OpCode.setData);
        Request r = new Request(0x1234L, 99, ZooDefs.OpCode.setData, hdr,
                new SetDataTxn("/victim", "changed".getBytes(StandardCharsets.UTF_8), 1), last + 1);
        r.setTxnDigest(new TxnDigest(real.getVersion(), real.getTreeDigest() + 1));
        assertTrue(log.append(r));
        log.commit();
        log.close();

        String err = refused(zkDir);
        assertTrue(err.contains("digest mismatch after txn 0x" + Long.toHexString(last + 1)
                + " in the ZooKeeper log"), err);
        assertTrue(err.contains("the log or snapshot is damaged"), err);
    }

    @Test
    void aMismatchThatLaterDigestsNoLongerShowIsANoteAndTheImportGoesOn() throws Exception {
        // what ZooKeeper's replay of a snapshot taken while it was writing can show at the txn the snapshot's digest
        // names (seen on a ZooKeeper 3.9.3 ensemble member's data, EnsembleImportTest): one txn's digest differs,
        // the next ones match
        Path zkDir = zooKeeperData();
        Path v2 = zkDir.resolve("version-2");
        DataTree tree = new DataTree();
        Map<Long, Integer> sessions = new HashMap<>();
        FileTxnSnapLog files = new FileTxnSnapLog(zkDir.toFile(), zkDir.toFile());
        long last;
        try {
            new FileSnap(v2.toFile()).deserialize(tree, sessions);
            last = files.fastForwardFromEdits(tree, sessions, (h, t, d) -> { });
        } finally {
            files.close();
        }
        TxnDigest real = lastDigest(v2, last);
        FileTxnLog log = new FileTxnLog(v2.toFile());
        for (int k = 1; k <= 2; k++) {
            TxnHeader hdr = new TxnHeader(0x1234L, 99 + k, last + k, System.currentTimeMillis(),
                    ZooDefs.OpCode.setData);
            SetDataTxn txn = new SetDataTxn("/victim", ("changed " + k).getBytes(StandardCharsets.UTF_8), k);
            tree.processTxn(hdr, txn); // the tree ZooKeeper would have after it: its true digest
            Request r = new Request(0x1234L, 99 + k, ZooDefs.OpCode.setData, hdr, txn, last + k);
            r.setTxnDigest(new TxnDigest(real.getVersion(), tree.getTreeDigest() + (k == 1 ? 1 : 0)));
            assertTrue(log.append(r));
        }
        log.commit();
        log.close();

        Path to = tmp.resolve("zkr");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = MigrateMain.run(new String[]{"import-zookeeper", "--from", zkDir.toString(), "--to",
                to.toString()}, new PrintStream(out, true), new PrintStream(out, true));
        assertEquals(0, status, out.toString());
        assertTrue(out.toString().contains("tree digest did not match the replayed tree at 1 txn(s) (first 0x"
                + Long.toHexString(last + 1) + "), and matches again at the last one compared, 0x"
                + Long.toHexString(last + 2)), out.toString());
    }

    @Test
    void aSnapshotWhoseDigestDoesNotMatchItsTreeIsRefused() throws Exception {
        Path zkDir = zooKeeperData();
        // ZooKeeper's tree as a server rebuilds it (snapshot + log: its digest at the last txn is known), one byte of
        // a node's data flipped behind the digest's back, written by ZooKeeper's own FileSnap: the snapshot's
        // checksum is intact, its digest is the tree's before the flip
        DataTree tree = new DataTree();
        Map<Long, Integer> sessions = new HashMap<>();
        FileTxnSnapLog files = new FileTxnSnapLog(zkDir.toFile(), zkDir.toFile());
        long zxid;
        try {
            new FileSnap(zkDir.resolve("version-2").toFile()).deserialize(tree, sessions);
            zxid = files.fastForwardFromEdits(tree, sessions, (h, t, d) -> { });
        } finally {
            files.close();
        }
        // one more txn through the tree (as a server applies it): the digest after it is what the snapshot records
        zxid++;
        tree.processTxn(new TxnHeader(0x1234L, 99, zxid, System.currentTimeMillis(), ZooDefs.OpCode.setData),
                new SetDataTxn("/n0", new byte[3], 1));
        byte[] data = tree.getNode("/victim").getData(); // ZooKeeper's own array, not a copy
        data[0] ^= 0x01;
        Path bad = Files.createDirectories(tmp.resolve("bad-snapshot/version-2"));
        File snap = bad.resolve("snapshot." + Long.toHexString(zxid)).toFile();
        new FileSnap(bad.toFile()).serialize(tree, sessions, snap, true);

        String err = refused(bad.getParent());
        assertTrue(err.contains("the digest of snapshot 0x" + Long.toHexString(zxid)), err);
        assertTrue(err.contains("does not match its tree"), err);
    }

    @Test
    void aByteFlippedInASnapshotFileIsCaughtByItsChecksum() throws Exception {
        Path zkDir = zooKeeperData();
        Path snap = ZooKeeperFiles.newest(zkDir.resolve("version-2"), "snapshot.");
        byte[] bytes = Files.readAllBytes(snap);
        int at = ZooKeeperFiles.indexOf(bytes, VICTIM);
        assertTrue(at > 0, "the node's data is in the snapshot");
        bytes[at] ^= 0x01;
        Path bad = Files.createDirectories(tmp.resolve("flipped/version-2"));
        Files.write(bad.resolve(snap.getFileName()), bytes);

        String err = refused(bad.getParent());
        assertTrue(err.contains("no valid ZooKeeper snapshot"), err);
    }

    // ---- helpers ---------------------------------------------------------------------------------------------------

    /** A real ZooKeeper 3.9.3 data dir whose newest snapshot holds /victim (a snapshot every 20-40 txns). */
    private Path zooKeeperData() throws Exception {
        Path zkDir = tmp.resolve("zk");
        try (ZooKeeperOnDir zk = ZooKeeperOnDir.start(zkDir)) {
            ZooKeeper a = clients.connect(zk.connectString());
            a.create("/victim", VICTIM, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            for (int i = 0; i < 100; i++) {
                a.create("/n" + i, new byte[10], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            }
            a.close();
        }
        return zkDir;
    }

    private String refused(Path from) {
        Path to = tmp.resolve("zkr-" + from.getFileName());
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = MigrateMain.run(new String[]{"import-zookeeper", "--from", from.toString(), "--to",
                to.toString()}, new PrintStream(OutputStreamNull.INSTANCE), new PrintStream(err, true));
        assertEquals(1, status, err.toString());
        assertTrue(err.toString().contains("nothing was written to " + to), err.toString());
        assertFalse(Files.exists(to), "nothing written");
        try (Stream<Path> s = Files.list(tmp)) {
            assertTrue(s.noneMatch(p -> p.getFileName().toString().contains(".staging-")), "no staging left");
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return err.toString();
    }

    private static TxnDigest lastDigest(Path v2, long zxid) throws IOException {
        FileTxnLog log = new FileTxnLog(v2.toFile());
        try (TxnLog.TxnIterator it = log.read(zxid)) {
            assertEquals(zxid, it.getHeader().getZxid());
            return it.getDigest();
        } finally {
            log.close();
        }
    }

    private static final class OutputStreamNull {
        static final java.io.OutputStream INSTANCE = java.io.OutputStream.nullOutputStream();
    }
}
