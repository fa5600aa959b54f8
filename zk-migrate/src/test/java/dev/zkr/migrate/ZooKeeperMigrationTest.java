package dev.zkr.migrate;

import dev.zkr.server.ServerConfig;
import dev.zkr.server.ZkServer;
import dev.zkr.storage.SnapshotStore;
import dev.zkr.tree.DataTree;
import dev.zkr.tree.NodeImage;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.server.persistence.FileSnap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Import and export against a real ZooKeeper 3.9.3 server's data directories: every node mode, ACLs, null data, live
 * sessions with ephemerals, txns over several log files and snapshots, a torn last record; the imported directory
 * served by a zkr server (every Stat field compared through a ZooKeeper client, which resumes its old session), and
 * the way back to a ZooKeeper that serves the same tree and resumes the same session.
 */
class ZooKeeperMigrationTest {
    private static final int SESSION_MS = ZkClients.SESSION_MS;

    @TempDir
    Path tmp;
    private final ZkClients clients = new ZkClients();

    @BeforeAll
    static void smallLogsAndSnapshots() {
        // a snapshot and a new log file every 20-40 txns, small preallocation: several of each in a few hundred txns
        org.apache.zookeeper.server.SyncRequestProcessor.setSnapCount(40);
        org.apache.zookeeper.server.persistence.FileTxnLog.setPreallocSize(64 * 1024);
    }

    @AfterEach
    void closeAll() throws Exception {
        clients.close();
    }

    @Test
    void importServesTheSameTreeAndSessionsOnZkrAndExportGoesBackToZooKeeper() throws Exception {
        Path zkDir = tmp.resolve("zk");
        ZooKeeperOnDir zk = ZooKeeperOnDir.start(zkDir);
        ZooKeeper a = connect(zk.connectString());
        EveryKind.write(a, connect(zk.connectString()), 1000);
        Map<String, String> before = TreeDump.of(a);
        long sessionId = a.getSessionId();
        byte[] password = a.getSessionPasswd();
        zk.close(); // client a stays open, disconnected: its session is live in the data
        // ZooKeeper skips a snapshot while the previous one is still being written: ~30 tries for 1000 txns
        assertTrue(files(zkDir.resolve("version-2"), "log.") >= 3, "several log files");
        assertTrue(files(zkDir.resolve("version-2"), "snapshot.") >= 3, "several snapshots");

        Path zkrDir = tmp.resolve("zkr");
        String out = cli(0, "import-zookeeper", "--from", zkDir.toString(), "--to", zkrDir.toString());
        assertTrue(out.contains("live session(s)"), out);

        // zkr's own kinds: containers and TTL nodes are node kinds there, not owners
        Map<String, NodeImage> images = zkrImages(zkrDir);
        assertTrue(images.get("/app/box").container());
        assertEquals(3_600_000, images.get("/app/ttl").ttlMs());
        assertEquals(0, images.get("/app/ttl").ephemeralOwner());
        assertEquals(sessionId, images.get("/app/eph").ephemeralOwner());

        try (ZkServer zkr = ZkServer.start(ServerConfig.builder(zkrDir).port(0).build())) {
            ZooKeeper resumed = resume(zkr.connectString(), sessionId, password);
            assertEquals(sessionId, resumed.getSessionId());
            assertEquals(before, TreeDump.of(resumed));
            assertNull(resumed.getData("/app/null", false, null));
        }

        Path back = tmp.resolve("zk-back");
        String exported = cli(0, "export-zookeeper", "--from", zkrDir.toString(), "--to", back.toString());
        assertTrue(exported.contains("snapshot."), exported);
        // ZooKeeper's encodings of the kinds in its snapshot
        org.apache.zookeeper.server.DataTree zt = new org.apache.zookeeper.server.DataTree();
        new FileSnap(back.resolve("version-2").toFile()).deserialize(zt, new HashMap<>());
        assertEquals(0x8000000000000000L, zt.getNode("/app/box").stat.getEphemeralOwner());
        assertEquals(0xff00000000000000L | 3_600_000, zt.getNode("/app/ttl").stat.getEphemeralOwner());

        try (ZooKeeperOnDir again = ZooKeeperOnDir.start(back)) {
            ZooKeeper onZk = resume(again.connectString(), sessionId, password);
            assertEquals(sessionId, onZk.getSessionId());
            assertEquals(before, TreeDump.of(onZk));
            onZk.close();
        }
        a.close(1000);

        // zkr continues the zxids after ZooKeeper's
        try (ZkServer zkr = ZkServer.start(ServerConfig.builder(zkrDir).port(0).build())) {
            ZooKeeper c = connect(zkr.connectString());
            c.create("/after", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            Stat s = c.exists("/after", false);
            assertTrue(Long.compareUnsigned(s.getCzxid(), c.exists("/app", false).getPzxid()) > 0);
            c.close();
        }
    }

    @Test
    void sessionsZkrCreatedAreExpiredOnZooKeeperAndTheirEphemeralsGo() throws Exception {
        Path zkrDir = tmp.resolve("zkr");
        long sessionId;
        byte[] password;
        ZkServer zkr = ZkServer.start(ServerConfig.builder(zkrDir).port(0).build());
        try {
            ZooKeeper onZkr = connect(zkr.connectString(), 4000);
            onZkr.create("/mine", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
            sessionId = onZkr.getSessionId();
            password = onZkr.getSessionPasswd();
        } finally {
            zkr.close(); // the session stays live in zkr's data
        }
        Path back = tmp.resolve("zk-back");
        cli(0, "export-zookeeper", "--from", zkrDir.toString(), "--to", back.toString());
        try (ZooKeeperOnDir zk = ZooKeeperOnDir.start(back)) {
            ZooKeeper observer = connect(zk.connectString());
            CountDownLatch deleted = new CountDownLatch(1);
            assertTrue(observer.exists("/mine", e -> {
                if (e.getType() == Watcher.Event.EventType.NodeDeleted) {
                    deleted.countDown();
                }
            }) != null, "the ephemeral is in the export");
            CountDownLatch expired = new CountDownLatch(1);
            ZooKeeper resuming = new ZooKeeper(zk.connectString(), 4000, e -> {
                if (e.getState() == Watcher.Event.KeeperState.Expired) {
                    expired.countDown();
                }
            }, sessionId, password);
            clients.keep(resuming);
            assertTrue(expired.await(20, TimeUnit.SECONDS), "zkr's password is not ZooKeeper's: session expired");
            assertTrue(deleted.await(30, TimeUnit.SECONDS), "ZooKeeper expires the session and deletes its ephemeral");
        }
    }

    @Test
    void aSeparateDataLogDirIsReadWithFromLog() throws Exception {
        Path zkDir = tmp.resolve("zk");
        try (ZooKeeperOnDir zk = ZooKeeperOnDir.start(zkDir)) {
            ZooKeeper a = connect(zk.connectString());
            a.create("/logged", "in the log".getBytes(StandardCharsets.UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE,
                    CreateMode.PERSISTENT);
            a.close();
        }
        // as ZooKeeper with dataLogDir set keeps them: snapshots in dataDir, logs in dataLogDir
        Path logDir = Files.createDirectories(tmp.resolve("zk-log/version-2"));
        for (Path log : list(zkDir.resolve("version-2"))) {
            if (log.getFileName().toString().startsWith("log.")) {
                Files.move(log, logDir.resolve(log.getFileName()));
            }
        }
        Path zkrDir = tmp.resolve("zkr");
        cli(0, "import-zookeeper", "--from", zkDir.toString(), "--from-log", logDir.getParent().toString(), "--to",
                zkrDir.toString());
        assertEquals("in the log", new String(zkrImages(zkrDir).get("/logged").data(), StandardCharsets.UTF_8));
    }

    @Test
    void aZkrServerWithADataLogDirIsExportedWithFromLog() throws Exception {
        Path zkrDir = tmp.resolve("zkr");
        Path zkrLogs = tmp.resolve("zkr-txlog");
        try (ZkServer zkr = ZkServer.start(ServerConfig.builder(zkrDir).logDir(zkrLogs.resolve("log")).port(0)
                .snapshotInterval(1_000_000).build())) {
            ZooKeeper c = connect(zkr.connectString());
            c.create("/in-the-log", "only in dataLogDir".getBytes(StandardCharsets.UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE,
                    CreateMode.PERSISTENT);
        }
        Path back = tmp.resolve("zk-back");
        cli(0, "export-zookeeper", "--from", zkrDir.toString(), "--from-log", zkrLogs.toString(), "--to",
                back.toString());
        org.apache.zookeeper.server.DataTree zt = new org.apache.zookeeper.server.DataTree();
        new FileSnap(back.resolve("version-2").toFile()).deserialize(zt, new HashMap<>());
        assertEquals("only in dataLogDir", new String(zt.getNode("/in-the-log").getData(), StandardCharsets.UTF_8));
        String err = cliErr(1, "export-zookeeper", "--from", zkrDir.toString(), "--from-log", zkrDir.toString(),
                "--to", tmp.resolve("x").toString());
        assertTrue(err.contains("holds no zkr log"), err);
    }

    @Test
    void tornLastRecordIsDroppedAsZooKeeperDropsIt() throws Exception {
        Path zkDir = tmp.resolve("zk");
        byte[] marker = new byte[4096];
        Arrays.fill(marker, (byte) 'T');
        try (ZooKeeperOnDir zk = ZooKeeperOnDir.start(zkDir)) {
            ZooKeeper a = connect(zk.connectString());
            a.create("/torn", "old".getBytes(StandardCharsets.UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE,
                    CreateMode.PERSISTENT);
            a.setData("/torn", marker, -1);
            a.close();
        }
        // the close of a came after it: tearing the setData drops that too, as a crash mid-write would
        Path log = newestLog(zkDir.resolve("version-2"));
        byte[] bytes = Files.readAllBytes(log);
        int at = ZooKeeperFiles.indexOf(bytes, marker);
        assertTrue(at > 0);
        Arrays.fill(bytes, at + marker.length / 2, bytes.length, (byte) 0);
        Files.write(log, bytes);

        Path zkrDir = tmp.resolve("zkr");
        cli(0, "import-zookeeper", "--from", zkDir.toString(), "--to", zkrDir.toString());
        Map<String, String> onZkr;
        try (ZkServer zkr = ZkServer.start(ServerConfig.builder(zkrDir).port(0).build())) {
            ZooKeeper c = connect(zkr.connectString());
            assertEquals("old", new String(c.getData("/torn", false, null), StandardCharsets.UTF_8));
            onZkr = TreeDump.of(c);
            c.close();
        }
        // a real ZooKeeper started on the same torn directory agrees (read before anything new is written)
        try (ZooKeeperOnDir zk = ZooKeeperOnDir.start(zkDir)) {
            ZooKeeper c = connect(zk.connectString());
            Map<String, String> onZk = TreeDump.of(c);
            assertEquals(onZk, onZkr);
            c.close();
        }
    }

    @Test
    void badInputIsRefusedWithAMessageAndNothingIsWritten() throws Exception {
        Path empty = Files.createDirectories(tmp.resolve("empty"));
        assertRefused(empty, "no ZooKeeper data in");
        Path emptyV2 = Files.createDirectories(tmp.resolve("empty2/version-2"));
        assertRefused(emptyV2.getParent(), "expected snapshot.<zxid> and log.<zxid> files");

        Path garbage = Files.createDirectories(tmp.resolve("garbage/version-2"));
        byte[] junk = new byte[5000];
        new java.util.Random(7).nextBytes(junk);
        Files.write(garbage.resolve("snapshot.1f"), junk);
        assertRefused(garbage.getParent(), "no valid ZooKeeper snapshot");

        // a real snapshot cut in half, no log
        Path zkDir = tmp.resolve("zk");
        try (ZooKeeperOnDir zk = ZooKeeperOnDir.start(zkDir)) {
            ZooKeeper a = connect(zk.connectString());
            for (int i = 0; i < 10; i++) {
                a.create("/n" + i, new byte[100], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            }
            a.close();
        }
        Path newest = newest(zkDir.resolve("version-2"), "snapshot.");
        Path truncated = Files.createDirectories(tmp.resolve("truncated/version-2"));
        byte[] snap = Files.readAllBytes(newest);
        Files.write(truncated.resolve(newest.getFileName()), Arrays.copyOf(snap, snap.length / 2));
        assertRefused(truncated.getParent(), "no valid ZooKeeper snapshot");

        // logs without a snapshot
        Path logsOnly = Files.createDirectories(tmp.resolve("logsonly/version-2"));
        Files.copy(newestLog(zkDir.resolve("version-2")), logsOnly.resolve("log.1"));
        assertRefused(logsOnly.getParent(), "no snapshot in");

        // a target that is not empty is left alone
        Path used = Files.createDirectories(tmp.resolve("used"));
        Files.writeString(used.resolve("keep"), "x");
        String err = cliErr(1, "import-zookeeper", "--from", zkDir.toString(), "--to", used.toString());
        assertTrue(err.contains("is not empty"), err);
        assertEquals(List.of(used.resolve("keep")), list(used));

        // export of something that is not a zkr data directory
        String e2 = cliErr(1, "export-zookeeper", "--from", empty.toString(), "--to", tmp.resolve("x").toString());
        assertTrue(e2.contains("no zkr data in"), e2);
        assertFalse(Files.exists(tmp.resolve("x")));
        assertEquals(2, MigrateMain.run(new String[]{"import-zookeeper", "--from"}, nowhere(), nowhere()));
    }

    @Test
    @EnabledIfSystemProperty(named = "zkr.long", matches = "true")
    void hundredsOfThousandsOfTxns() throws Exception {
        org.apache.zookeeper.server.SyncRequestProcessor.setSnapCount(50_000);
        try {
            Path zkDir = tmp.resolve("zk");
            ZooKeeperOnDir zk = ZooKeeperOnDir.start(zkDir);
            ZooKeeper a = connect(zk.connectString());
            EveryKind.write(a, connect(zk.connectString()), 300_000);
            Map<String, String> before = TreeDump.of(a);
            zk.close();
            Path zkrDir = tmp.resolve("zkr");
            cli(0, "import-zookeeper", "--from", zkDir.toString(), "--to", zkrDir.toString());
            try (ZkServer zkr = ZkServer.start(ServerConfig.builder(zkrDir).port(0).build())) {
                ZooKeeper c = resume(zkr.connectString(), a.getSessionId(), a.getSessionPasswd());
                assertEquals(before, TreeDump.of(c));
            }
            a.close(1000);
        } finally {
            org.apache.zookeeper.server.SyncRequestProcessor.setSnapCount(40);
        }
    }

    // ---- helpers ---------------------------------------------------------------------------------------------------

    private ZooKeeper connect(String connectString) throws Exception {
        return clients.connect(connectString);
    }

    private ZooKeeper connect(String connectString, int sessionMs) throws Exception {
        return clients.connect(connectString, sessionMs);
    }

    private ZooKeeper resume(String connectString, long sessionId, byte[] password) throws Exception {
        return clients.resume(connectString, sessionId, password);
    }

    private static Map<String, NodeImage> zkrImages(Path zkrDir) {
        DataTree tree = SnapshotStore.open(zkrDir.resolve("snapshots"))
                .loadNewestValid((zxid, in) -> DataTree.readSnapshot(in)).orElseThrow().state();
        Map<String, NodeImage> m = new HashMap<>();
        tree.forEachImage(im -> m.put(im.path(), im));
        return m;
    }

    private void assertRefused(Path from, String message) {
        Path to = tmp.resolve("refused-" + from.getFileName());
        String err = cliErr(1, "import-zookeeper", "--from", from.toString(), "--to", to.toString());
        assertTrue(err.contains(message), err);
        assertTrue(err.contains("nothing was written"), err);
        assertFalse(Files.exists(to), "nothing written");
        try (Stream<Path> s = Files.list(tmp)) {
            assertTrue(s.noneMatch(p -> p.getFileName().toString().contains(".staging-")), "no staging left");
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static String cli(int status, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int s = MigrateMain.run(args, new PrintStream(out, true), new PrintStream(err, true));
        assertEquals(status, s, out + "\n" + err);
        return out.toString();
    }

    private static String cliErr(int status, String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int s = MigrateMain.run(args, nowhere(), new PrintStream(err, true));
        assertEquals(status, s, err.toString());
        return err.toString();
    }

    private static PrintStream nowhere() {
        return new PrintStream(java.io.OutputStream.nullOutputStream());
    }

    private static long files(Path dir, String prefix) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().startsWith(prefix)).count();
        }
    }

    private static List<Path> list(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.toList();
        }
    }

    private static Path newest(Path dir, String prefix) throws IOException {
        return ZooKeeperFiles.newest(dir, prefix);
    }

    private static Path newestLog(Path dir) throws IOException {
        return ZooKeeperFiles.newest(dir, "log.");
    }
}
