package dev.zkr.server;

import dev.zkr.server.round.TraceHashFixture;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zkr.client.Acl;
import dev.zkr.client.Acls;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Id;
import dev.zkr.client.NodeAcl;
import dev.zkr.client.NodeData;
import dev.zkr.client.Op;
import dev.zkr.client.Parents;
import dev.zkr.client.Perms;
import dev.zkr.client.Stat;
import dev.zkr.client.ZkClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * A data directory written by the code before the zk-server reshape (src/test/resources/dev/zkr/server/datadir/:
 * {@code data/} as the standalone server left it — consensus.meta, a snapshot, log segments with txns after it — and
 * {@code expected.txt}, every node as the writing server served it) must start with the code after it, every node's
 * data, ACL and Stat as recorded: "no wire, log or snapshot format change".
 *
 * <p>{@link #write} (run with {@code -Dzkr.dataDirFixture.write=true}) writes the fixture anew with the current code:
 * {@code mvn -B -q -pl zk-core/zk-server -am test -Dtest=DataDirFixtureTest -Dsurefire.failIfNoSpecifiedTests=false
 * -Dzkr.dataDirFixture.write=true}. Only for a format change that is meant (and then keep the old one too).
 */
class DataDirFixtureTest {

    static final String FIXTURE = "dev/zkr/server/datadir";
    private static final String ALICE = "alice:secret";
    private static final Id ALICE_ID = Acls.digest("alice", "secret");
    private static final Id BOB_ID = Acls.digest("bob", "hunter2");
    /** A snapshot every 50 txns; the first phase (~65 txns) crosses it, the second (~30) stays in the log after it. */
    private static final long SNAPSHOT_INTERVAL = 50;

    @TempDir
    Path dir;

    @Test
    @DisabledIfSystemProperty(named = "zkr.dataDirFixture.write", matches = "true")
    void theRecordedDataDirectoryStartsWithEveryNodeAsRecorded() throws IOException {
        Path fixture = resource(FIXTURE);
        copy(fixture.resolve("data"), dir);
        List<String> expected = Files.readAllLines(fixture.resolve("expected.txt"), StandardCharsets.UTF_8).stream()
                .filter(l -> !l.startsWith("#") && !l.isBlank()).toList();
        assertTrue(expected.size() > 40, "expected.txt holds " + expected.size() + " nodes");
        long lastRecorded = 0;
        try (ZkServer server = ZkServer.start(ServerFixture.config(dir).build());
             ZkClient alice = client(server)) {
            List<String> actual = describeTree(alice);
            for (int i = 0; i < Math.max(expected.size(), actual.size()); i++) {
                String e = i < expected.size() ? expected.get(i) : "(no more nodes)";
                String a = i < actual.size() ? actual.get(i) : "(no more nodes)";
                assertEquals(e, a, "the tree recovered from " + FIXTURE + " (snapshot + log) differs from"
                        + " expected.txt at node " + (i + 1) + " of " + expected.size());
            }
            for (String line : expected) {
                lastRecorded = Math.max(lastRecorded, Long.parseLong(field(line, "mzxid")));
                lastRecorded = Math.max(lastRecorded, Long.parseLong(field(line, "pzxid")));
            }
            // and it goes on from there: a new write takes a zxid above every recorded one
            Stat after = alice.createWithStat("/after-restart", bytes("new"), CreateMode.PERSISTENT,
                    Parents.NONE).stat();
            assertTrue(after.czxid() > lastRecorded, Long.toHexString(after.czxid()) + " <= "
                    + Long.toHexString(lastRecorded));
        }
    }

    /** Writes the fixture with the current code into src/test/resources (see the class comment). */
    @Test
    @EnabledIfSystemProperty(named = "zkr.dataDirFixture.write", matches = "true")
    void write() throws IOException, InterruptedException {
        Path data = dir.resolve("data");
        List<String> tree;
        ServerConfig config = ServerFixture.config(data).snapshotInterval(SNAPSHOT_INTERVAL).logSegmentBytes(4096)
                .build();
        try (ZkServer server = ZkServer.start(config)) {
            try (ZkClient c = client(server)) {
                phaseOne(c);
                ServerFixture.await("a snapshot", Duration.ofSeconds(10), () -> !snapshots(data).isEmpty());
                phaseTwo(c);
                tree = describeTree(c);
            }
        }
        List<Long> snaps = snapshots(data);
        List<Long> segments = zxidsOf(data.resolve("log"), "log.");
        long newestSnapshot = snaps.get(snaps.size() - 1);
        assertTrue(segments.stream().anyMatch(z -> z > newestSnapshot), "no log segment after snapshot "
                + Long.toHexString(newestSnapshot) + ": " + segments);
        assertTrue(Files.exists(data.resolve("consensus.meta")), "no consensus.meta");

        Path target = Path.of(System.getProperty("basedir", "."), "src", "test", "resources", FIXTURE);
        ServerFixture.deleteRecursively(target);
        copy(data, target.resolve("data"));
        List<String> lines = new ArrayList<>();
        lines.add("# A standalone data directory (data/) written by commit " + TraceHashFixture.commit()
                + " with DataDirFixtureTest#write, and every node as that server served it.");
        lines.add("# Snapshots " + hex(snaps) + ", log segments " + hex(segments) + "; " + tree.size() + " nodes.");
        lines.add("# Line: path data(base64) acl(perms:scheme:id,...) stat. Rewrite: mvn -B -q -pl zk-core/zk-server"
                + " -am test -Dtest=DataDirFixtureTest -Dsurefire.failIfNoSpecifiedTests=false"
                + " -Dzkr.dataDirFixture.write=true");
        lines.addAll(tree);
        Files.write(target.resolve("expected.txt"), lines, StandardCharsets.UTF_8);
        try (Stream<Path> files = Files.walk(target)) {
            System.out.println("zkr.dataDirFixture: wrote " + target.toAbsolutePath() + ":\n" + files
                    .filter(Files::isRegularFile).map(p -> "  " + target.relativize(p) + " " + size(p) + " bytes")
                    .collect(Collectors.joining("\n")));
        }
    }

    /** Goes into the first snapshot (and the log before and after it): every kind of node and ACL. */
    private static void phaseOne(ZkClient c) {
        List<Acl> aliceAndReaders = List.of(new Acl(Perms.ALL, ALICE_ID), new Acl(Perms.READ, Acls.ANYONE_ID_UNSAFE));
        c.create("/app", bytes("app root"), CreateMode.PERSISTENT);
        c.create("/app/config", bytes("{\"threads\": 4, \"mode\": \"fast\"}"), CreateMode.PERSISTENT, aliceAndReaders);
        c.create("/app/private", bytes("only alice"), CreateMode.PERSISTENT, List.of(new Acl(Perms.ALL, ALICE_ID)));
        c.create("/app/creator", bytes("mine"), CreateMode.PERSISTENT, Acls.CREATOR_ALL);
        c.create("/app/shared", bytes("alice reads, bob writes"), CreateMode.PERSISTENT,
                List.of(new Acl(Perms.READ | Perms.ADMIN, ALICE_ID), new Acl(Perms.ALL, BOB_ID)));
        c.create("/app/ip", bytes("from loopback"), CreateMode.PERSISTENT,
                List.of(new Acl(Perms.READ, new Id("ip", "127.0.0.1")), new Acl(Perms.ALL, ALICE_ID)));
        byte[] binary = new byte[256];
        for (int i = 0; i < binary.length; i++) {
            binary[i] = (byte) i;
        }
        c.create("/app/binary", binary, CreateMode.PERSISTENT);
        c.create("/app/empty", new byte[0], CreateMode.PERSISTENT,
                List.of(new Acl(Perms.READ, Acls.ANYONE_ID_UNSAFE), new Acl(Perms.ADMIN, ALICE_ID)));
        c.create("/app/readonly", bytes("world may read"), CreateMode.PERSISTENT, Acls.READ_ONLY);
        c.create("/app/\u00fcn\u00efc\u00f6de", bytes("\u00fc \u20ac \u6f22"), CreateMode.PERSISTENT);
        c.create("/queue", new byte[0], CreateMode.PERSISTENT);
        for (int i = 0; i < 10; i++) {
            c.create("/queue/item-", bytes("job " + i), CreateMode.PERSISTENT_SEQUENTIAL);
        }
        c.create("/bulk", bytes("bulk"), CreateMode.PERSISTENT);
        for (int i = 0; i < 44; i++) {
            c.create(String.format("/bulk/n%02d", i), bytes("value " + i), CreateMode.PERSISTENT,
                    i % 3 == 0 ? aliceAndReaders : Acls.OPEN_UNSAFE);
        }
    }

    /** Only in the log after the snapshot: updates of snapshotted nodes, deletes, more sequentials, a multi. */
    private static void phaseTwo(ZkClient c) {
        c.setData("/app/config", bytes("{\"threads\": 8, \"mode\": \"fast\"}"), 0);
        c.setData("/app/config", bytes("{\"threads\": 8, \"mode\": \"safe\"}"), 1);
        c.setAcl("/app/private", List.of(new Acl(Perms.ALL, ALICE_ID), new Acl(Perms.READ, BOB_ID)), 0);
        c.setAcl("/app/empty", Acls.OPEN_UNSAFE, 0);
        c.delete("/queue/item-0000000003", 0);
        c.delete("/queue/item-0000000007", -1);
        for (int i = 10; i < 13; i++) {
            c.create("/queue/item-", bytes("job " + i), CreateMode.PERSISTENT_SEQUENTIAL);
        }
        c.multi(List.of(
                Op.check("/app/config", 2),
                Op.create("/app/multi-a", bytes("a"), CreateMode.PERSISTENT),
                Op.create("/app/multi-b", bytes("b"), CreateMode.PERSISTENT, Acls.CREATOR_ALL),
                Op.setData("/app/binary", bytes("no longer binary"), 0)));
        for (int i = 5; i < 10; i++) {
            c.delete(String.format("/bulk/n%02d", i), -1);
        }
        for (int i = 10; i < 15; i++) {
            c.setData(String.format("/bulk/n%02d", i), bytes("value " + i + " updated"), -1);
        }
        c.create("/late", bytes("created after the snapshot"), CreateMode.PERSISTENT);
        c.create("/late/deep", new byte[0], CreateMode.PERSISTENT);
        c.create("/late/deep/seq-", bytes("s"), CreateMode.PERSISTENT_SEQUENTIAL, List.of(
                new Acl(Perms.ALL, ALICE_ID)));
        c.create("/late/deep/seq-", bytes("t"), CreateMode.PERSISTENT_SEQUENTIAL);
    }

    /** Every node but /zookeeper's, depth first in name order: path, data, ACL, every Stat field. */
    static List<String> describeTree(ZkClient c) {
        List<String> out = new ArrayList<>();
        describe(c, "/", out);
        return out;
    }

    private static void describe(ZkClient c, String path, List<String> out) {
        NodeData d = c.getData(path);
        NodeAcl a = c.getAcl(path);
        Stat s = d.stat();
        assertEquals(s, a.stat(), path + ": getData and getAcl disagree on the Stat");
        String acl = a.acls().stream().map(x -> x.perms() + ":" + x.id().scheme() + ":" + x.id().id())
                .collect(Collectors.joining(","));
        List<String> children = new ArrayList<>(c.getChildren(path));
        if (path.equals("/") && children.contains("zookeeper")) {
            // ZooKeeper's /zookeeper (SystemNodes, issue 27) is shown beside the data directory's tree, not stored in
            // it: the root is described without it, as stored (one child fewer, cversion as without that child)
            s = new Stat(s.czxid(), s.mzxid(), s.pzxid(), s.ctime(), s.mtime(), s.version(), s.cversion() + 1,
                    s.aversion(), s.ephemeralOwner(), s.dataLength(), s.numChildren() - 1);
        }
        out.add(path + " data=" + (d.data() == null ? "-" : Base64.getEncoder().encodeToString(d.data())) + " acl="
                + acl + " czxid=" + s.czxid() + " mzxid=" + s.mzxid() + " pzxid=" + s.pzxid() + " ctime=" + s.ctime()
                + " mtime=" + s.mtime() + " version=" + s.version() + " cversion=" + s.cversion() + " aversion="
                + s.aversion() + " ephemeralOwner=" + s.ephemeralOwner() + " dataLength=" + s.dataLength()
                + " numChildren=" + s.numChildren());
        children.sort(null);
        for (String child : children) {
            String p = path.equals("/") ? "/" + child : path + "/" + child;
            if (!p.equals("/zookeeper")) {
                describe(c, p, out);
            }
        }
    }

    private static String field(String line, String name) {
        for (String f : line.split(" ")) {
            if (f.startsWith(name + "=")) {
                return f.substring(name.length() + 1);
            }
        }
        throw new AssertionError("no " + name + " in " + line);
    }

    private static ZkClient client(ZkServer server) {
        return ZkClient.builder().connectString(server.connectString()).sessionTimeout(Duration.ofSeconds(10))
                .authInfo("digest", bytes(ALICE)).build();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static List<Long> snapshots(Path data) {
        return zxidsOf(data.resolve("snapshots"), "snapshot.");
    }

    /** The hex zxids in the names {@code prefix<hex>} of a directory's files, in order. */
    private static List<Long> zxidsOf(Path d, String prefix) {
        if (!Files.isDirectory(d)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(d)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.matches(prefix.replace(".", "\\.")
                    + "[0-9a-f]+")).map(n -> Long.parseUnsignedLong(n.substring(prefix.length()), 16)).sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String hex(List<Long> zxids) {
        return zxids.stream().map(Long::toHexString).collect(Collectors.joining(" ", "[", "]"));
    }

    private static long size(Path p) {
        try {
            return Files.size(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path resource(String name) {
        URL url = DataDirFixtureTest.class.getClassLoader().getResource(name);
        assertTrue(url != null, "no " + name + " on the test classpath");
        try {
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path p : files.toList()) {
                Path t = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t);
                }
            }
        }
    }
}
