package dev.zkr.server;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.StringReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ZooKeeper's own {@code zoo.cfg} files start zkr unchanged (issue 28): the standalone file of ZooKeeper's Getting
 * Started guide, and the replicated one as its Administrator's Guide runs it on one machine (three files, member
 * lines {@code localhost:quorumPort:electionPort}, a client port and data dir each, {@code myid}), served to ZooKeeper's
 * own client; and every ZooKeeper key zkr maps, ignores or refuses, with its message.
 */
@Timeout(120)
class ZooCfgTest {

    @TempDir
    Path dir;

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static Properties props(String text) throws IOException {
        Properties p = new Properties();
        p.load(new StringReader(text));
        return p;
    }

    private Path write(String name, String text) throws IOException {
        Path f = dir.resolve(name);
        Files.writeString(f, text);
        return f;
    }

    private static ZooKeeper connect(String connectString) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(connectString, 30_000, e -> {
            if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        assertTrue(connected.await(30, TimeUnit.SECONDS), "connected to " + connectString);
        return zk;
    }

    @Test
    void theGettingStartedStandaloneFileStartsZkr() throws Exception {
        int port = freePort();
        String text = "tickTime=2000\ndataDir=" + dir.resolve("zookeeper") + "\nclientPort=" + port + "\n";
        Path cfg = write("zoo.cfg", text);
        ServerConfig config = ZkServerMain.config(new String[] {cfg.toString()});
        assertEquals(List.of(), ZooKeeperConfig.notes(props(text)), "every key of this file is zkr's too");
        assertEquals(2000, config.tickTimeMs());
        try (ZkServer server = ZkServer.start(config)) {
            ZooKeeper zk = connect("127.0.0.1:" + port);
            try {
                zk.create("/app", "x".getBytes(), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                assertArrayEquals("x".getBytes(), zk.getData("/app", false, null));
            } finally {
                zk.close();
            }
        }
    }

    /** The Administrator's Guide's replicated setup on one machine: three zoo.cfg files, myid in each data dir. */
    @Test
    void theReplicatedFilesOfTheAdministratorsGuideStartAThreeMemberEnsemble() throws Exception {
        int[] client = {freePort(), freePort(), freePort()};
        StringBuilder lines = new StringBuilder();
        for (int i = 1; i <= 3; i++) {
            lines.append("server.").append(i).append("=localhost:").append(freePort()).append(':')
                    .append(freePort()).append('\n');
        }
        List<ZkServer> servers = new ArrayList<>();
        List<String> notes = null;
        try {
            for (int i = 1; i <= 3; i++) {
                Path data = dir.resolve("zk" + i);
                Files.createDirectories(data);
                Files.writeString(data.resolve("myid"), i + "\n");
                String text = "tickTime=2000\ndataDir=" + data + "\nclientPort=" + client[i - 1]
                        + "\ninitLimit=5\nsyncLimit=2\n" + lines;
                Path cfg = write("zoo" + i + ".cfg", text);
                ServerConfig config = ZkServerMain.config(new String[] {cfg.toString()});
                assertEquals(i, config.serverId());
                assertEquals(client[i - 1], config.port());
                assertEquals(0, config.members().get(0).clientPort(), "the other members' client ports are unknown");
                notes = ZooKeeperConfig.notes(props(text));
                servers.add(ZkServer.start(config));
            }
            ZooKeeper first = connect("127.0.0.1:" + client[0]);
            ZooKeeper third = connect("127.0.0.1:" + client[2]);
            try {
                first.create("/replicated", "r".getBytes(), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                third.sync("/", (rc, path, ctx) -> { }, null);
                assertArrayEquals("r".getBytes(), third.getData("/replicated", false, null));
            } finally {
                first.close();
                third.close();
            }
        } finally {
            servers.forEach(ZkServer::close);
        }
        assertTrue(notes.stream().anyMatch(n -> n.startsWith("initLimit=5 is not used: ")), notes.toString());
        assertTrue(notes.stream().anyMatch(n -> n.startsWith("syncLimit=2 is not used: ")), notes.toString());
        assertEquals(3, notes.stream().filter(n -> n.matches("server\\.\\d=localhost:\\d+:\\d+: the quorum port is "
                + "zkr's peer port; the election port is not used")).count(), notes.toString());
    }

    /** reconfigEnabled is read as it is (no note), false by default as ZooKeeper's. */
    @Test
    void reconfigEnabledIsReadAsItIs() throws Exception {
        String base = "tickTime=2000\ndataDir=" + dir + "\nclientPort=2181\n";
        assertFalse(ServerConfig.fromProperties(props(base)).reconfigEnabled());
        String text = base + "reconfigEnabled=true\n";
        assertTrue(ServerConfig.fromProperties(props(text)).reconfigEnabled());
        assertEquals(List.of(), ZooKeeperConfig.notes(props(text)));
    }

    @Test
    void zooKeepersKeysAreMappedAndNoted() throws Exception {
        String text = "tickTime=2000\ndataDir=" + dir + "\nclientPort=2181\nclientPortAddress=127.0.0.1\n"
                + "admin.serverPort=8081\nsnapCount=5000\nautopurge.purgeInterval=1\ndataLogDir=/fast/log\n"
                + "4lw.commands.whitelist=srvr,ruok\nmaxClientCnxns=60\nforceSync=no\nnoSuchKey=1\n"
                + "authProvider.1=org.apache.zookeeper.server.auth.SASLAuthenticationProvider\n";
        ServerConfig config = ServerConfig.fromProperties(props(text));
        assertEquals(InetAddress.getByName("127.0.0.1"), config.bindAddress());
        assertEquals(8081, config.adminPort());
        assertEquals(5000, config.snapshotInterval());
        assertEquals(2181, config.port());
        List<String> notes = ZooKeeperConfig.notes(props(text));
        for (String expected : List.of(
                "clientPortAddress=127.0.0.1: read as zkr's bindAddress",
                "admin.serverPort=8081: read as zkr's adminPort (zkr's admin endpoint, its own JSON paths, not "
                        + "ZooKeeper's /commands)",
                "snapCount=5000: read as zkr's snapshotInterval (a snapshot every that many txns)",
                "autopurge.purgeInterval=1 is not used: zkr purges after each snapshot by itself (logRetentionTxns)",
                "forceSync=no is not used: zkr always fsyncs its log before it acknowledges a write",
                "noSuchKey is not a setting zkr knows (neither zkr's nor a ZooKeeper setting it maps): ignored",
                "authProvider.1=org.apache.zookeeper.server.auth.SASLAuthenticationProvider is not used: zkr's "
                        + "authentication schemes are digest, ip, x509 and super")) {
            assertTrue(notes.stream().anyMatch(n -> n.startsWith(expected)), expected + " in " + notes);
        }
        assertEquals(7, notes.size(), "one line per key zkr does not read as it is: " + notes);
        assertEquals(Path.of("/fast/log/log"), config.logDir(), "dataLogDir is read as it is");
    }

    @Test
    void dataLogDirHoldsTheLogAndARestartRecoversFromIt() throws Exception {
        Path data = dir.resolve("data");
        Path logs = dir.resolve("txlog");
        ServerConfig config = ServerConfig.fromProperties(props("tickTime=2000\ndataDir=" + data + "\ndataLogDir="
                + logs + "\nclientPort=" + freePort() + "\n"));
        assertEquals(logs.resolve("log"), config.logDir());
        try (ZkServer server = ZkServer.start(config)) {
            ZooKeeper zk = connect(server.connectString());
            zk.create("/logged", "in dataLogDir".getBytes(), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            zk.close();
        }
        try (java.util.stream.Stream<Path> segments = Files.list(logs.resolve("log"))) {
            assertTrue(segments.anyMatch(f -> Files.isRegularFile(f)), "log segments in dataLogDir/log");
        }
        assertTrue(!Files.exists(data.resolve("log")), "no log under dataDir");
        try (ZkServer server = ZkServer.start(config)) {
            ZooKeeper zk = connect(server.connectString());
            assertArrayEquals("in dataLogDir".getBytes(), zk.getData("/logged", false, null), "recovered from it");
            zk.close();
        }
    }

    /** ZooKeeper's static observers: a member line marked {@code :observer} (and {@code peerType=observer}). */
    @Test
    void anObserverLineStartsAnObserverThatServesAndNeverVotes() throws Exception {
        int[] client = {freePort(), freePort(), freePort(), freePort()};
        StringBuilder lines = new StringBuilder();
        for (int i = 1; i <= 4; i++) {
            lines.append("server.").append(i).append("=localhost:").append(freePort()).append(':')
                    .append(freePort()).append(i == 4 ? ":observer" : "").append(';').append(client[i - 1])
                    .append('\n');
        }
        List<ZkServer> servers = new ArrayList<>();
        try {
            for (int i = 1; i <= 4; i++) {
                Path data = dir.resolve("obs" + i);
                Files.createDirectories(data);
                Files.writeString(data.resolve("myid"), i + "\n");
                String text = "tickTime=2000\ndataDir=" + data + "\nclientPort=" + client[i - 1]
                        + "\ninitLimit=5\nsyncLimit=2\n" + (i == 4 ? "peerType=observer\n" : "") + lines;
                servers.add(ZkServer.start(ZkServerMain.config(new String[] {write("obs" + i + ".cfg", text)
                        .toString()})));
            }
            ZooKeeper observer = connect("127.0.0.1:" + client[3]);
            try {
                observer.create("/via-observer", "o".getBytes(), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                assertArrayEquals("o".getBytes(), observer.getData("/via-observer", false, null));
            } finally {
                observer.close();
            }
            dev.zkr.tree.Txn.Membership m = servers.get(0).membership();
            assertEquals(List.of(1, 2, 3), m.ids(dev.zkr.client.EnsembleMember.Role.VOTER), m.toString());
            assertEquals(List.of(4), m.ids(dev.zkr.client.EnsembleMember.Role.OBSERVER), m.toString());
            assertEquals(m, servers.get(3).membership());
            assertTrue(servers.stream().noneMatch(s -> s.serverId() == 4 && s.isLeading()), "an observer never leads");
        } finally {
            servers.forEach(ZkServer::close);
        }
    }

    @Test
    void whatZkrCannotHonourIsRefusedWithItsReason() {
        String base = "tickTime=2000\ndataDir=" + dir + "\ninitLimit=5\nsyncLimit=2\n";
        assertTrue(refusal(base + "clientPort=2181\nsecureClientPort=2281\n").startsWith("secureClientPort 2281 "
                + "beside clientPort 2181: zkr serves one client port"));
        assertTrue(refusal(base + "secureClientPort=2281\n").startsWith("secureClientPort 2281 needs the client "
                + "port's TLS keys"));
        assertTrue(refusal(base + "clientPort=2181\ndynamicConfigFile=/conf/zoo.cfg.dynamic\n").startsWith(
                "dynamicConfigFile /conf/zoo.cfg.dynamic: zkr reads its member lines from this file only"));
        assertTrue(refusal(base + "clientPort=2181\nadmin.enableServer=false\nadmin.serverPort=8080\n")
                .startsWith("admin.enableServer=false beside an admin port"));
        assertTrue(refusal(base + "server.1=localhost:2888:3888\nserverId=1\n").startsWith("server.1 has no client "
                + "port: set clientPort"));
        assertTrue(refusal(base + "clientPort=2181\nserver.1=localhost:2888:3888:leader\nserverId=1\n")
                .contains("unknown role 'leader'"));
    }

    @Test
    void zooKeepersDynamicFormOfAMemberLineGivesItsClientPort() throws Exception {
        Properties p = props("server.1=127.0.0.1:2888:3888:participant;127.0.0.1:2181\n"
                + "server.2=127.0.0.1:2889:3889;2182\n");
        assertTrue(ZooKeeperConfig.isZooKeeperStyle(p));
        List<ServerConfig.Member> members = MemberList.parse(p, true);
        assertEquals(List.of(new ServerConfig.Member(1, "127.0.0.1", 2888, 2181),
                new ServerConfig.Member(2, "127.0.0.1", 2889, 2182)), members);
        assertTrue(!ZooKeeperConfig.isZooKeeperStyle(props("server.1=127.0.0.1:2888:2181\n")),
                "zkr's own form stays zkr's");
    }

    private String refusal(String text) {
        return assertThrows(IllegalArgumentException.class, () -> ServerConfig.fromProperties(props(text)))
                .getMessage();
    }
}
