package dev.zkr.server;

import dev.zkr.server.ServerConfig.Member;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Ensemble settings through ZkServerMain's config path (file + flags + myid) and their refusals. */
class EnsembleConfigTest {

    private static final String THREE = "server.1=127.0.0.1:2888:2181\nserver.2=127.0.0.1:2889:2182\n"
            + "server.3=127.0.0.1:2890:2183\n";

    @TempDir
    Path dir;

    private Path data;

    private Path file(String lines) throws IOException {
        data = dir.resolve("data");
        Files.createDirectories(data);
        Path f = dir.resolve("zkr.properties");
        Files.writeString(f, "dataDir=" + data + "\n" + lines);
        return f;
    }

    private ServerConfig config(String lines, String... flags) throws IOException {
        String[] args = new String[flags.length + 1];
        args[0] = file(lines).toString();
        System.arraycopy(flags, 0, args, 1, flags.length);
        return ZkServerMain.config(args);
    }

    private String refusal(String lines, String... flags) throws IOException {
        file(lines);
        return assertThrows(IllegalArgumentException.class, () -> config(lines, flags)).getMessage();
    }

    @Test
    void anEnsembleNameMakesTheIdIndependentOfEachMembersView() throws IOException {
        String viewOf1 = "server.1=127.0.0.1:2888:2181\nserver.2=127.0.0.1:3888:2182\nserver.3=127.0.0.1:3889:2183\n";
        long plain1 = Assembler.ensembleIdOf(config(viewOf1, "--server-id", "1"));
        long plain2 = Assembler.ensembleIdOf(config(THREE, "--server-id", "2"));
        assertTrue(plain1 != plain2, "different member lines, different ids: a misconfiguration is refused");
        long named1 = Assembler.ensembleIdOf(config("ensembleName=east\n" + viewOf1, "--server-id", "1"));
        long named2 = Assembler.ensembleIdOf(config("ensembleName=east\n" + THREE, "--server-id", "2"));
        long other = Assembler.ensembleIdOf(config("ensembleName=west\n" + THREE, "--server-id", "2"));
        assertEquals(named1, named2, "the same name and member ids: the same ensemble, whatever addresses each sees");
        assertTrue(named2 != other, "another name is another ensemble");
        assertEquals(Optional.of("east"), config("ensembleName=east\n" + THREE, "--server-id", "2").ensembleName());
    }

    /**
     * One definition of the ensemble id: a standalone server's is a digest too, unlike any ensemble's, and the id
     * standalone servers stored before (List.of(id).hashCode()) still marks a standalone directory that may join.
     */
    @Test
    void aStandaloneServersIdIsOfTheSameKindAndTheOldOneIsStillKnown() throws IOException {
        long standalone = Assembler.ensembleIdOf(ServerConfig.builder(java.nio.file.Path.of("unused")).serverId(2)
                .build());
        assertTrue(Assembler.isStandaloneId(standalone, 2));
        assertTrue(Assembler.isStandaloneId(java.util.List.of(2).hashCode(), 2), "the id written before");
        assertFalse(Assembler.isStandaloneId(standalone, 3));
        assertTrue(standalone != Assembler.ensembleIdOf(config(THREE, "--server-id", "2")));
    }

    @Test
    void myidFileNamesTheServerAndItsLineGivesTheClientPort() throws IOException {
        file(THREE);
        Files.writeString(data.resolve("myid"), "2\n");
        ServerConfig c = config(THREE);
        assertTrue(c.isEnsemble());
        assertEquals(2, c.serverId());
        assertEquals(Optional.of(new Member(2, "127.0.0.1", 2889, 2182)), c.self());
        assertEquals(List.of(1, 2, 3), c.members().stream().map(Member::id).toList());
        assertEquals(2182, c.port());
        assertEquals(InetAddress.getByName("127.0.0.1"), c.bindAddress());
        assertEquals(List.of(), ZkServerMain.warnings(c));
    }

    @Test
    void serverIdFlagWhenThereIsNoMyid() throws IOException {
        ServerConfig c = config(THREE, "--server-id", "3");
        assertEquals(3, c.serverId());
        assertEquals(2183, c.port());
        assertEquals(3, config(THREE + "serverId=3\n").serverId());
    }

    @Test
    void timersDefaultFromTickTimeAndHaveFlagsAndProperties() throws IOException {
        ServerConfig zkDefaults = config(THREE, "--server-id", "1");
        assertEquals(Duration.ofMillis(1000), zkDefaults.electionTimeout(), "tickTime 2000 / 2");
        assertEquals(Duration.ofMillis(100), zkDefaults.heartbeatInterval());
        assertEquals(4000, zkDefaults.minSessionTimeoutMs(), "2 ticks = 2 x 2 x electionTimeout: accepted");
        ServerConfig shortTick = config(THREE + "tickTime=300\nminSessionTimeout=800\n", "--server-id=1");
        assertEquals(Duration.ofMillis(200), shortTick.electionTimeout(), "at least 200 ms");
        assertEquals(Duration.ofMillis(20), shortTick.heartbeatInterval());
        ServerConfig set = config(THREE + "electionTimeout=400\nheartbeatInterval=50\n", "--server-id", "1",
                "--election-timeout", "300", "--heartbeat-interval=30");
        assertEquals(Duration.ofMillis(300), set.electionTimeout(), "flags win over the file");
        assertEquals(Duration.ofMillis(30), set.heartbeatInterval());
        ServerConfig fromFile = config(THREE + "electionTimeout=400\nheartbeatInterval=50\n", "--server-id", "1");
        assertEquals(Duration.ofMillis(400), fromFile.electionTimeout());
        assertEquals(Duration.ofMillis(50), fromFile.heartbeatInterval());
    }

    @Test
    void noMemberLinesIsStandaloneAsBefore() throws IOException {
        file("");
        Files.writeString(data.resolve("myid"), "7"); // ignored: ZooKeeper's standalone ignores it too
        ServerConfig c = config("port=2191\ntickTime=100\n");
        assertFalse(c.isEnsemble());
        assertEquals(List.of(), c.members());
        assertEquals(Optional.empty(), c.self());
        assertEquals(1, c.serverId());
        assertEquals(2191, c.port());
        assertEquals(InetAddress.getLoopbackAddress(), c.bindAddress());
        assertEquals(200, c.minSessionTimeoutMs(), "no failover check without an ensemble");
    }

    @Test
    void oneMemberLineIsStandaloneOnThatLine() throws IOException {
        ServerConfig c = config("server.4=127.0.0.1:2888:2191\n");
        assertFalse(c.isEnsemble());
        assertEquals(4, c.serverId(), "the only line names the server");
        assertEquals(2191, c.port());
    }

    @Test
    void aMatchingClientPortAndAnExplicitBindAddressAreAccepted() throws IOException {
        ServerConfig c = config(THREE + "clientPort=2181\nbindAddress=0.0.0.0\n", "--server-id", "1");
        assertEquals(2181, c.port());
        assertEquals(InetAddress.getByName("0.0.0.0"), c.bindAddress());
    }

    @Test
    void evenEnsemblesStartWithAWarning() throws IOException {
        ServerConfig c = config("server.1=127.0.0.1:2888:2181\nserver.2=127.0.0.1:2889:2182\n", "--server-id", "1");
        assertTrue(c.isEnsemble());
        assertEquals(List.of("an ensemble of 2 tolerates no server failure (a majority of 2 is 2); run 1, 3 or 5 "
                + "servers"), ZkServerMain.warnings(c));
    }

    @Test
    void noServerIdIsRefused() throws IOException {
        assertEquals("which member is this server? set --server-id (serverId) or write its number to "
                + dir.resolve("data").resolve("myid") + " (members: server.1, server.2, server.3)", refusal(THREE));
    }

    @Test
    void unknownServerIdIsRefusedNamingWhereItCameFrom() throws IOException {
        assertEquals("server id 4 (from serverId) is not in the member list server.1, server.2, server.3",
                refusal(THREE, "--server-id", "4"));
        file(THREE);
        Files.writeString(data.resolve("myid"), "5");
        assertEquals("server id 5 (from " + data.resolve("myid") + ") is not in the member list server.1, "
                + "server.2, server.3", refusal(THREE));
    }

    @Test
    void aMyidThatDisagreesWithServerIdIsRefused() throws IOException {
        file(THREE);
        Files.writeString(data.resolve("myid"), "1");
        assertEquals("serverId 2 disagrees with " + data.resolve("myid") + ", which holds 1 (is this another "
                + "server's data dir?)", refusal(THREE, "--server-id", "2"));
    }

    @Test
    void badMyidFilesAreRefused() throws IOException {
        file(THREE);
        Path myid = data.resolve("myid");
        Files.writeString(myid, "two\n");
        assertEquals(myid + " does not hold a server id: 'two'", refusal(THREE));
        Files.writeString(myid, "300");
        assertEquals(myid + " holds server id 300, outside 1..255", refusal(THREE));
        Files.writeString(myid, "1".repeat(100));
        assertEquals(myid + " does not hold a server id (100 bytes)", refusal(THREE));
    }

    @Test
    void aClientPortThatDisagreesWithTheLineIsRefused() throws IOException {
        assertEquals("port 2999 disagrees with server.1=127.0.0.1:2888:2181, whose client port is 2181 (zkr's "
                + "lines are server.N=host:peerPort:clientPort; a file with initLimit/syncLimit is read as "
                + "ZooKeeper's): drop port or make it agree", refusal(THREE, "--server-id", "1", "--port", "2999"));
        // ZooKeeper's server.N=host:2888:3888 with clientPort=2181, in a file without ZooKeeper's quorum keys
        assertEquals("clientPort 2181 disagrees with server.1=zk1:2888:3888, whose client port is 3888 (zkr's "
                        + "lines are server.N=host:peerPort:clientPort; a file with initLimit/syncLimit is read as "
                        + "ZooKeeper's): drop clientPort or make it agree",
                refusal("clientPort=2181\nserver.1=zk1:2888:3888\nserver.2=zk2:2888:3888\nserver.3=zk3:2888:3888\n",
                        "--server-id", "1"));
    }

    @Test
    void zooKeeperStyleLinesInAZkrFileAreRefused() throws IOException {
        String m = refusal("server.1=zk1:2888:3888:2181\n", "--server-id", "1");
        assertEquals("server.1=zk1:2888:3888:2181 looks like a ZooKeeper line (host:quorumPort:electionPort"
                + "[:role][;clientPort]) in a zkr file; zkr's form is server.N=host:peerPort:clientPort (one peer "
                + "port, the client port last), or give the file ZooKeeper's initLimit and syncLimit to have it "
                + "read as a zoo.cfg", m);
    }

    @Test
    void duplicatePortsAreRefused() throws IOException {
        assertEquals("127.0.0.1:2181 is both the client port of server.1 and the client port of server.2: every "
                + "peer and client port of the member list must be distinct", refusal(
                "server.1=127.0.0.1:2888:2181\nserver.2=127.0.0.1:2889:2181\nserver.3=127.0.0.1:2890:2183\n",
                "--server-id", "1"));
    }

    @Test
    void sessionTimeoutsTooShortToSurviveAFailoverAreRefused() throws IOException {
        String expected = "minSessionTimeout 3000 ms is shorter than 2 x 2 x electionTimeout = 4000 ms: a failover "
                + "would expire sessions; raise minSessionTimeout (default 2 x tickTime) or lower electionTimeout "
                + "(default tickTime / 2, at least 200 ms)";
        assertEquals(expected, refusal(THREE + "minSessionTimeout=3000\n", "--server-id", "1"));
        assertEquals("minSessionTimeout 400 ms is shorter than 2 x 2 x electionTimeout = 800 ms: a failover "
                        + "would expire sessions; raise minSessionTimeout (default 2 x tickTime) or lower "
                        + "electionTimeout (default tickTime / 2, at least 200 ms)",
                refusal(THREE + "tickTime=200\n", "--server-id", "1"), "ZooKeeper's 2-tick minimum with a short tick");
        ServerConfig shorter = config(THREE + "minSessionTimeout=3000\n", "--server-id", "1",
                "--election-timeout", "750");
        assertEquals(3000, shorter.minSessionTimeoutMs(), "a shorter election timeout makes 3000 ms enough");
        assertEquals(750, shorter.electionTimeout().toMillis());
    }

    @Test
    void heartbeatNotShorterThanTheElectionTimeoutIsRefused() throws IOException {
        assertEquals("heartbeatInterval 500 ms must be shorter than electionTimeout 500 ms",
                refusal(THREE, "--server-id", "1", "--election-timeout", "500", "--heartbeat-interval", "500"));
        assertEquals("heartbeatInterval 10 ms (default: electionTimeout / 10, at least 10 ms) must be shorter than "
                + "electionTimeout 10 ms", refusal("", "--election-timeout", "10"));
    }

    @Test
    void badNumbersAreRefused() throws IOException {
        assertEquals("electionTimeout is not a number: '1s'", refusal(THREE, "--server-id", "1",
                "--election-timeout", "1s"));
        assertEquals("heartbeatInterval must be a positive number of milliseconds: 0", refusal(THREE,
                "--server-id", "1", "--heartbeat-interval", "0"));
        assertEquals("tickTime must be a positive number of milliseconds: -5", refusal("tickTime=-5\n"));
        assertEquals("serverId is not a number: 'one'", refusal(THREE, "--server-id", "one"));
        assertEquals("serverId must be in 1..255: 0", refusal(THREE, "--server-id", "0"));
    }

    @Test
    void mainPrintsOneLineAndExitsWithStatus2() throws Exception {
        Path f = file(THREE);
        Files.writeString(data.resolve("myid"), "4");
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx64m", "-cp", System.getProperty("java.class.path"), ZkServerMain.class.getName(), f.toString());
        pb.redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(2, p.waitFor(), out);
        List<String> lines = out.lines().filter(l -> !l.startsWith("Picked up ")).toList(); // JAVA_TOOL_OPTIONS
        assertEquals("zkr: server id 4 (from " + data.resolve("myid") + ") is not in the member list server.1, "
                + "server.2, server.3", lines.get(0), out);
        assertEquals(ZkServerMain.USAGE, String.join("\n", lines.subList(1, lines.size())), out);
    }

    @Test
    void theBuilderChecksTheSameRules() {
        ServerConfig.Builder b = ServerConfig.builder(dir).member(1, "127.0.0.1", 2888, 2181)
                .member(2, "127.0.0.1", 2889, 2182).member(3, "127.0.0.1", 2890, 2183);
        assertEquals(2182, b.serverId(2).build().port(), "port from the own line");
        assertEquals(2182, b.serverId(2).port(2182).build().port());
        assertEquals("port 2999 disagrees with server.2=127.0.0.1:2889:2182 (in an ensemble the client port is the "
                        + "last number of the server's own line)",
                assertThrows(IllegalArgumentException.class, () -> b.serverId(2).port(2999).build()).getMessage());
        assertEquals("server id 9 is not in the member list server.1, server.2, server.3",
                assertThrows(IllegalArgumentException.class, () -> b.port(0).serverId(9).build()).getMessage());
        assertThrows(IllegalArgumentException.class, () -> b.serverId(1).minSessionTimeout(Duration.ofMillis(3999))
                .build(), "2 x 2 x electionTimeout");
        ServerConfig.Builder ports = ServerConfig.builder(dir).serverId(1).member(1, "h", 2888, 2181)
                .member(2, "h", 2181, 2182);
        assertTrue(assertThrows(IllegalArgumentException.class, ports::build).getMessage()
                .startsWith("h:2181 is both the client port of server.1 and the peer port of server.2"));
        // TestEnsemble-style: ports chosen at bind time are not compared, withPort keeps working
        ServerConfig free = ServerConfig.builder(dir).serverId(1).member(1, "127.0.0.1", 0, 0)
                .member(2, "127.0.0.1", 0, 0).member(3, "127.0.0.1", 0, 0).build();
        assertEquals(4321, free.withPort(4321).port());
    }
}
