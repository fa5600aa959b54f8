package dev.zkr.migrate;

import dev.zkr.server.ServerConfig;
import dev.zkr.server.ZkServer;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Data written by the real servers of ZooKeeper 3.5, 3.6, 3.7 and 3.8 (the newest patch release of each, each in a
 * child JVM with its own jars): every node mode the version has (persistent, sequential, ephemeral and
 * ephemeral-sequential of a live session, container, TTL and sequential TTL, digest and read-only ACLs, null data),
 * several snapshots and log files; the server killed with {@code kill -9}; imported; a zkr server on the result
 * serves the same tree with every Stat field and ACL, and the live session resumes on it with its ephemerals.
 * (3.9.3 is {@link ZooKeeperMigrationTest}.)
 */
class OlderZooKeeperImportTest {

    @TempDir
    Path tmp;
    private final ZkClients clients = new ZkClients();

    @AfterEach
    void closeAll() throws Exception {
        clients.close();
    }

    /** The oldest (no digests) and the newest before 3.9 by default; every version under {@code -Plong}. */
    static List<String> versions() {
        return Boolean.getBoolean("zkr.long") ? List.of("3.5.10", "3.6.4", "3.7.2", "3.8.4")
                : List.of("3.5.10", "3.8.4");
    }

    @ParameterizedTest(name = "ZooKeeper {0}")
    @MethodSource("versions")
    void dataOfAnOlderServerKilledMidRunImportsAndServesTheSameTreeAndSession(String version) throws Exception {
        Path zkDir = tmp.resolve("zk-" + version);
        int port = ZooKeeperProcess.freePorts(1)[0];
        Map<String, String> before;
        long sessionId;
        byte[] password;
        try (ZooKeeperProcess zk = ZooKeeperProcess.start(ZooKeeperProcess.jarsOf(version), zkDir, 0, port,
                Map.of()).awaitServing()) {
            ZooKeeper a = clients.connect(zk.connectString());
            EveryKind.write(a, clients.connect(zk.connectString()), 600);
            before = TreeDump.of(a);
            assertTrue(zk.output().contains(version), "the child runs ZooKeeper " + version + "\n" + zk.output());
            sessionId = a.getSessionId();
            password = a.getSessionPasswd();
            zk.kill(); // a stays open, disconnected: its session is live in the data
        }
        Path v2 = zkDir.resolve("version-2");
        assertTrue(count(v2, "log.") >= 2 && count(v2, "snapshot.") >= 2, "several log files and snapshots");

        Path zkrDir = tmp.resolve("zkr-" + version);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = MigrateMain.run(new String[]{"import-zookeeper", "--from", zkDir.toString(), "--to",
                zkrDir.toString()}, new PrintStream(out, true), new PrintStream(out, true));
        assertEquals(0, status, out.toString());
        assertTrue(out.toString().contains("1 live session(s)"), out.toString());

        try (ZkServer zkr = ZkServer.start(ServerConfig.builder(zkrDir).port(0).build())) {
            ZooKeeper resumed = clients.resume(zkr.connectString(), sessionId, password);
            assertEquals(sessionId, resumed.getSessionId());
            assertEquals(before, TreeDump.of(resumed));
            Stat eph = resumed.exists("/app/eph", false);
            assertEquals(sessionId, eph.getEphemeralOwner(), "the resumed session owns its ephemeral");
            List<String> kids = resumed.getChildren("/app", false);
            assertTrue(kids.stream().anyMatch(k -> k.startsWith("ephseq-")), kids.toString());
        }
    }

    private static long count(Path dir, String prefix) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().startsWith(prefix)).count();
        }
    }
}
