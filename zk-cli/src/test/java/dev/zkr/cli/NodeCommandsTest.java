package dev.zkr.cli;

import dev.zkr.cli.Cli.Result;
import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import dev.zkr.testkit.TestEnsemble;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static dev.zkr.cli.Cli.zkr;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The node commands end to end: in-process {@code zkr} against a real zkr server on loopback. */
class NodeCommandsTest {

    private static TestEnsemble ensemble;
    private static ZkClient client;
    private static String server;

    @BeforeAll
    static void start() {
        ensemble = TestEnsemble.builder().start();
        client = ensemble.newClient();
        server = ensemble.connectString();
    }

    @AfterAll
    static void stop() {
        ensemble.close();
    }

    private static void ok(Result r) {
        assertEquals(0, r.exit(), r::toString);
        assertEquals("", r.err(), r::toString);
    }

    /** A failure: the exit code and exactly one line on stderr, nothing on stdout. */
    private static void fails(Result r, int exit, String errContains) {
        assertEquals(exit, r.exit(), r::toString);
        assertEquals("", r.out(), r::toString);
        assertTrue(r.err().endsWith("\n") && r.err().indexOf('\n') == r.err().length() - 1, () -> "one line: " + r);
        assertTrue(r.err().contains(errContains), r::toString);
    }

    @Test
    void createGetSetStatDeleteWithSpacesInPathAndData() {
        ok(zkr(server, "create", "-p", "/n1/with space/child", "hello wörld"));
        assertEquals("hello wörld",
                new String(client.getData("/n1/with space/child").data(), StandardCharsets.UTF_8));

        Result get = zkr(server, "get", "/n1/with space/child");
        ok(get);
        assertEquals(List.of("hello wörld"), get.lines());

        ok(zkr(server, "set", "-v", "0", "/n1/with space/child", "second value"));
        assertEquals(1, client.exists("/n1/with space/child").version());

        Result stat = zkr(server, "stat", "/n1/with space/child");
        ok(stat);
        assertTrue(stat.lines().contains("dataVersion = 1"), stat::toString);
        assertTrue(stat.lines().contains("dataLength = 12"), stat::toString);

        ok(zkr(server, "delete", "-v", "1", "/n1/with space/child"));
        assertNull(client.exists("/n1/with space/child"));
    }

    @Test
    void createModesPrintTheActualPath() {
        Result seq = zkr(server, "create", "-p", "-s", "/n2/item-", "x");
        ok(seq);
        assertTrue(seq.out().matches("/n2/item-\\d{10}\n"), seq::toString);

        // an ephemeral node lives as long as the command's session: gone once the one-shot command ends
        ok(zkr(server, "create", "-e", "/n2/eph"));
        Cli.await("the one-shot session's ephemeral to go", Duration.ofSeconds(10),
                () -> client.exists("/n2/eph") == null);

        // -c makes a container: the server deletes it once its last child goes (a persistent node would stay)
        ok(zkr(server, "create", "-c", "/n2/box"));
        assertTrue(client.exists("/n2/box") != null);
        ok(zkr(server, "create", "/n2/box/only-child"));
        ok(zkr(server, "delete", "/n2/box/only-child"));
        Cli.await("the emptied container to go", Duration.ofSeconds(30), () -> client.exists("/n2/box") == null);

        fails(zkr(server, "create", "-c", "-e", "/n2/bad"), ExitCode.USAGE, "-c (container) cannot be combined");
    }

    @Test
    void binaryDataInAndOutAsHexAndBase64() {
        byte[] binary = {0, 1, (byte) 0xff, 0x7f, 10, 13};
        ok(zkr(server, "create", "/n3", "--hex", "0001ff7f0a0d"));
        assertArrayEquals(binary, client.getData("/n3").data());
        assertEquals(List.of("0001ff7f0a0d"), zkr(server, "--hex", "get", "/n3").lines());
        assertEquals(List.of("AAH/fwoN"), zkr(server, "get", "/n3", "--base64").lines());

        ok(zkr(server, "set", "/n3", "--base64", "AAH/fwoN"));
        assertArrayEquals(binary, client.getData("/n3").data());

        // JSON keeps every byte: data that is not UTF-8 is written as base64
        Result json = zkr(server, "get", "/n3", "--json");
        ok(json);
        assertTrue(json.out().startsWith("{\"path\":\"/n3\",\"data\":\"AAH/fwoN\",\"encoding\":\"base64\",\"stat\":{"),
                json::toString);

        fails(zkr(server, "set", "/n3", "--hex", "xyz"), ExitCode.USAGE, "not hex data: 'xyz'");
        fails(zkr(server, "get", "/n3", "--hex", "--base64"), ExitCode.USAGE, "exclude each other");
    }

    @Test
    void lsTreeAndDeleteall() {
        client.create("/n4/b/deep", new byte[0], CreateMode.PERSISTENT, dev.zkr.client.Parents.PERSISTENT);
        client.create("/n4/a", "quote \" and\nnewline".getBytes(StandardCharsets.UTF_8), CreateMode.PERSISTENT);

        assertEquals(List.of("a", "b"), zkr(server, "ls", "/n4").lines());
        assertEquals(List.of("/n4", "/n4/a", "/n4/b", "/n4/b/deep"), zkr(server, "ls", "-R", "/n4").lines());
        assertEquals(List.of("/n4", "├── a", "└── b", "    └── deep"), zkr(server, "tree", "/n4").lines());

        Result ls = zkr(server, "--json", "ls", "/n4");
        assertEquals("{\"path\":\"/n4\",\"children\":[\"a\",\"b\"]}\n", ls.out());
        Result get = zkr(server, "get", "--json", "/n4/a");
        assertTrue(get.out().contains("\"data\":\"quote \\\" and\\nnewline\",\"encoding\":\"utf8\""), get::toString);
        Result tree = zkr(server, "tree", "--json", "/n4/b");
        assertEquals("{\"name\":\"b\",\"path\":\"/n4/b\",\"children\":[{\"name\":\"deep\",\"path\":\"/n4/b/deep\","
                + "\"children\":[]}]}\n", tree.out());

        fails(zkr(server, "delete", "/n4"), ExitCode.NODE, "node /n4 has children");
        Result all = zkr(server, "deleteall", "/n4", "--json");
        assertEquals("{\"path\":\"/n4\",\"deleted\":4}\n", all.out());
        assertNull(client.exists("/n4"));
        fails(zkr(server, "deleteall", "/"), ExitCode.USAGE, "refusing to delete the root");
    }

    @Test
    void exitCodesAndOneErrorLine() {
        fails(zkr(server, "get", "/missing"), ExitCode.NODE, "zkr get: no node /missing");
        fails(zkr(server, "stat", "/missing"), ExitCode.NODE, "no node /missing");
        client.create("/n5", new byte[0], CreateMode.PERSISTENT);
        fails(zkr(server, "create", "/n5"), ExitCode.NODE, "node /n5 already exists");
        fails(zkr(server, "set", "-v", "7", "/n5", "x"), ExitCode.NODE, "version mismatch on /n5");
        fails(zkr(server, "get", "no-slash"), ExitCode.USAGE, "invalid path 'no-slash'");
        fails(zkr(server, "frobnicate"), ExitCode.USAGE, "Unmatched argument");
        fails(zkr(server, "lss", "/"), ExitCode.USAGE, "(did you mean ls?)");
        fails(zkr(server, "get"), ExitCode.USAGE, "Missing required parameter: 'PATH'");
        fails(zkr(server, "set", "-v", "one", "/n5", "x"), ExitCode.USAGE, "'one' is not an int");
    }

    @Test
    void connectionFailureIsItsOwnExitCode() throws IOException {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        Result r = Cli.raw("--server", "127.0.0.1:" + closedPort, "--timeout", "1s", "ls", "/");
        fails(r, ExitCode.CONNECTION, "no connection to 127.0.0.1:" + closedPort);
    }

    @Test
    void syncAndJsonResultsOfWrites() {
        ok(zkr(server, "sync", "/"));
        Result c = zkr(server, "create", "/n6", "v", "--json");
        ok(c);
        assertTrue(c.out().startsWith("{\"path\":\"/n6\",\"mode\":\"PERSISTENT\",\"stat\":{\"czxid\":"), c::toString);
        Result s = zkr(server, "set", "/n6", "w", "--json");
        assertTrue(s.out().contains("\"version\":1"), s::toString);
        assertEquals("{\"path\":\"/n6\",\"deleted\":true}\n", zkr(server, "delete", "/n6", "--json").out());
        assertEquals("{\"path\":\"/\",\"synced\":true}\n", zkr(server, "sync", "--json").out());
    }

    @Test
    void watchPrintsEventsUntilItHasSeenEnough() {
        client.create("/n7", new byte[0], CreateMode.PERSISTENT);
        CompletableFuture<Result> watch = CompletableFuture.supplyAsync(() -> zkr(server, "watch", "-r", "-n", "3", "/n7"));
        // the command's watch is set some time after it starts (its own session): write until it has seen enough
        Cli.await("the watch to print its first event", Duration.ofSeconds(20), () -> {
            if (watch.isDone()) {
                return true;
            }
            client.setData("/n7", "ping".getBytes(StandardCharsets.UTF_8), -1);
            return false;
        });
        Result r = watch.join();
        assertEquals(0, r.exit(), r::toString);
        assertEquals(3, r.lines().size(), r::toString);
        assertTrue(r.lines().stream().allMatch(l -> l.matches("NODE_DATA_CHANGED /n7 zxid=0x[0-9a-f]+")),
                r::toString);
        assertEquals("watching /n7 and below (Ctrl-C to stop)\n", r.err());
    }

    @Test
    void recursiveWatchSeesDescendantsAndJsonLines() {
        client.create("/n8", new byte[0], CreateMode.PERSISTENT);
        CompletableFuture<Result> watch =
                CompletableFuture.supplyAsync(() -> zkr(server, "watch", "-r", "-n", "2", "--json", "/n8"));
        Cli.await("the recursive watch to see two creations", Duration.ofSeconds(20), () -> {
            if (watch.isDone()) {
                return true;
            }
            client.create("/n8/c-", new byte[0], CreateMode.PERSISTENT_SEQUENTIAL);
            return false;
        });
        Result r = watch.join();
        assertEquals(0, r.exit(), r::toString);
        assertEquals(2, r.lines().size(), r::toString);
        for (String line : r.lines()) {
            assertTrue(line.matches("\\{\"type\":\"NODE_CREATED\",\"path\":\"/n8/c-\\d{10}\",\"zxid\":\\d+}"), line);
        }
    }
}
