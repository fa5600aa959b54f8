package dev.zkr.migrate;

import dev.zkr.testkit.TestEnsemble;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A 3-server ZooKeeper 3.9.3 ensemble (three child JVMs) becomes a 3-server zkr ensemble: member 3 is killed early
 * (its data lags), the other two take more writes and are killed ({@code kill -9}); each member's data directory is
 * imported into its own zkr data directory and a zkr ensemble starts on the three. One leader (not the lagging
 * member), every member serves ZooKeeper's final tree (every Stat field and ACL), the live ZooKeeper session resumes
 * with its id and password and finds its ephemerals, and writes work on every member.
 */
class EnsembleImportTest {
    private static final Pattern LAST_ZXID = Pattern.compile("last zxid 0x([0-9a-f]+)");

    @TempDir
    Path tmp;
    private final ZkClients clients = new ZkClients();
    private final List<ZooKeeperProcess> members = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        clients.close();
        for (ZooKeeperProcess p : members) {
            p.close();
        }
    }

    @Test
    void aZooKeeperEnsembleWithALaggingMemberBecomesAZkrEnsembleServingTheNewestTree() throws Exception {
        int[] ports = ZooKeeperProcess.freePorts(9);
        Map<String, String> servers = new HashMap<>();
        for (int id = 1; id <= 3; id++) {
            servers.put("server." + id, "127.0.0.1:" + ports[3 * id - 2] + ":" + ports[3 * id - 1]);
        }
        for (int id = 1; id <= 3; id++) {
            members.add(ZooKeeperProcess.start(List.of(), tmp.resolve("zk" + id), id, ports[3 * id - 3], servers));
        }
        for (ZooKeeperProcess m : members) {
            m.awaitServing(); // a leader elected, every member serving
        }
        // the member that will lag is a follower (killing the leader would fail the writes in flight)
        ZooKeeper first = clients.connect(connectString(members));
        int lagging = follower(first);
        first.close();
        List<ZooKeeperProcess> others = new ArrayList<>(members);
        others.remove(lagging);
        ZooKeeper a = clients.connect(connectString(others));
        EveryKind.write(a, clients.connect(connectString(others)), 300);
        // the lagging member has what was written so far (a read through it after a sync), then dies
        ZooKeeper onLagging = clients.connect(members.get(lagging).connectString());
        sync(onLagging);
        assertTrue(onLagging.exists("/load", false) != null);
        onLagging.close();
        members.get(lagging).kill();
        a.create("/late", "after a member died".getBytes(StandardCharsets.UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE,
                CreateMode.PERSISTENT);
        a.create("/app/eph-late", null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
        a.setData("/app", "changed late".getBytes(StandardCharsets.UTF_8), -1);
        Map<String, String> before = TreeDump.of(a);
        long sessionId = a.getSessionId();
        byte[] password = a.getSessionPasswd();
        for (ZooKeeperProcess p : others) {
            p.kill(); // the session of a is live in the data
        }
        a.close(100); // it cannot reach a server to close its session; it resumes below, as one client


        Path base = tmp.resolve("zkr");
        long[] zxids = new long[3];
        for (int id = 1; id <= 3; id++) {
            zxids[id - 1] = importDir(tmp.resolve("zk" + id), base.resolve("server-" + (id - 1)));
            assertEquals(id + "\n", Files.readString(base.resolve("server-" + (id - 1) + "/myid")), "myid kept");
        }
        long newest = Math.max(Math.max(zxids[0], zxids[1]), zxids[2]);
        for (int i = 0; i < 3; i++) {
            if (i == lagging) {
                assertTrue(zxids[i] < newest, "member " + (i + 1) + " lags");
            } else {
                assertEquals(newest, zxids[i], "member " + (i + 1) + " has every committed txn");
            }
        }

        // clients of zkr close before it does (a client closing after its server waits for an answer)
        try (TestEnsemble zkr = TestEnsemble.builder().servers(3).baseDir(base).start();
             ZkClients onZkr = new ZkClients()) {
            int leader = zkr.leader();
            assertNotEquals(lagging, leader, "the lagging member cannot lead: " + zkr.roles());
            assertEquals(1, zkr.roles().chars().filter(c -> c == '*').count(), "one leader: " + zkr.roles());

            ZooKeeper resumed = onZkr.resume(zkr.connectString(), sessionId, password);
            assertEquals(sessionId, resumed.getSessionId());
            assertEquals(before, TreeDump.of(resumed));
            assertEquals(sessionId, resumed.exists("/app/eph-late", false).getEphemeralOwner());
            for (int i = 0; i < 3; i++) {
                ZooKeeper c = onZkr.connect(zkr.connectString(i));
                c.addAuthInfo("digest", "alice:secret".getBytes(StandardCharsets.UTF_8)); // sees digest ACLs
                sync(c);
                assertEquals(before, TreeDump.of(c), "member " + (i + 1) + " serves the newest tree");
            }

            byte[] fresh = "written on zkr".getBytes(StandardCharsets.UTF_8);
            resumed.create("/after-import", fresh, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            resumed.setData("/late", fresh, 0);
            for (int i = 0; i < 3; i++) {
                ZooKeeper c = onZkr.connect(zkr.connectString(i));
                sync(c);
                assertArrayEquals(fresh, c.getData("/after-import", false, null), "member " + (i + 1));
                assertArrayEquals(fresh, c.getData("/late", false, null), "member " + (i + 1));
            }
        }
    }

    private static String connectString(List<ZooKeeperProcess> servers) {
        return String.join(",", servers.stream().map(ZooKeeperProcess::connectString).toList());
    }

    /** The index of a member that serves as a follower (the ensemble has a leader once a client is connected). */
    private int follower(ZooKeeper connected) throws Exception {
        sync(connected);
        for (int i = 0; i < members.size(); i++) {
            if (members.get(i).mode().equals("follower")) {
                return i;
            }
        }
        throw new AssertionError("no member says it is a follower");
    }

    /** Imports one member's data dir; returns its last zxid. */
    private static long importDir(Path from, Path to) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = MigrateMain.run(new String[]{"import-zookeeper", "--from", from.toString(), "--to",
                to.toString()}, new PrintStream(out, true), new PrintStream(out, true));
        assertEquals(0, status, out.toString());
        Matcher m = LAST_ZXID.matcher(out.toString());
        assertTrue(m.find(), out.toString());
        return Long.parseUnsignedLong(m.group(1), 16);
    }

    /** ZooKeeper's sync: the server the client is on has every txn committed before it. */
    private static void sync(ZooKeeper zk) throws Exception {
        CompletableFuture<Integer> done = new CompletableFuture<>();
        zk.sync("/", (rc, path, ctx) -> done.complete(rc), null);
        assertEquals(0, done.get(30, TimeUnit.SECONDS));
    }
}
