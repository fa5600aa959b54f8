package dev.zkr.cli.shell;

import dev.zkr.cli.Session;
import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import dev.zkr.testkit.TestEnsemble;
import org.jline.reader.Candidate;
import org.jline.reader.impl.DefaultParser;
import org.jline.terminal.Terminal;
import org.jline.terminal.impl.DumbTerminal;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The shell through JLine on a dumb terminal fed from a string, against a real zkr server. */
class ShellTest {

    private static TestEnsemble ensemble;
    private static ZkClient client;

    @BeforeAll
    static void start() {
        ensemble = TestEnsemble.builder().start();
        client = ensemble.newClient();
    }

    @AfterAll
    static void stop() {
        ensemble.close();
    }

    @Test
    void runsQuotedCommandsOnOneSessionKeepsGoingAfterErrorsAndSavesHistory(@TempDir Path dir) throws Exception {
        String input = String.join("\n",
                "create /sh \"two words\"",
                "get /sh",
                "set /sh 'single  quoted'",
                "get /sh",
                "create -e /sh/eph",
                "create /sh/\"in quotes\"",
                "get /nope",
                "",
                "ls /sh",
                "get /sh/in\\ quotes",
                "set /sh/in\\ quotes 'wow!'",
                "get /sh/in\\ quotes",
                "get --hex /sh",
                "exit",
                "ls /never-run") + "\n";
        ByteArrayOutputStream screen = new ByteArrayOutputStream();
        Path history = dir.resolve("history");
        long ephemeralOwner;
        try (Session session = new Session(ensemble.connectString(), false, Duration.ofSeconds(10));
             Terminal terminal = new DumbTerminal("test", "dumb",
                     new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), screen, StandardCharsets.UTF_8)) {
            int last = new Shell(terminal, session, history).run();
            assertEquals(0, last);
            ephemeralOwner = client.exists("/sh/eph").ephemeralOwner(); // the shell's session still lives
            assertEquals(session.client().sessionId(), ephemeralOwner);
        }
        String out = screen.toString(StandardCharsets.UTF_8).replace("\r", "");
        List<String> lines = out.lines().map(l -> l.replaceAll("^(zkr \\S+> )+", "")).toList();
        assertTrue(lines.contains("two words"), out);
        assertTrue(lines.contains("single  quoted"), out);
        assertTrue(lines.contains("zkr get: no node /nope"), out);
        assertTrue(lines.contains("eph"), out);
        assertTrue(lines.contains("in quotes"), out);
        assertTrue(lines.contains("wow!"), out); // a backslash-escaped blank and a '!' reach the command as typed
        assertTrue(lines.contains("73696e676c65202071756f746564"), out);
        assertTrue(out.contains("zkr " + ensemble.connectString() + "> "), out);
        assertTrue(lines.stream().noneMatch(l -> l.startsWith("zkr ls")), out); // nothing ran after exit
        dev.zkr.cli.Cli.await("the shell session's ephemeral to go", Duration.ofSeconds(10),
                () -> client.exists("/sh/eph") == null);

        List<String> saved = Files.readAllLines(history);
        assertTrue(saved.stream().anyMatch(l -> l.endsWith("create /sh \"two words\"")), saved::toString);
        assertTrue(saved.stream().anyMatch(l -> l.endsWith("get /nope")), saved::toString);
        assertTrue(saved.stream().noneMatch(l -> l.endsWith("ls /never-run")), saved::toString);
    }

    @Test
    void completesCommandNamesAndChildPathsFromTheServer() {
        client.create("/comp", new byte[0], CreateMode.PERSISTENT);
        for (String name : List.of("alpha", "alps", "beta", "a b")) {
            client.create("/comp/" + name, new byte[0], CreateMode.PERSISTENT);
        }
        try (Session session = new Session(ensemble.connectString(), false, Duration.ofSeconds(10))) {
            ZkrCompleter completer = new ZkrCompleter(List.of("get", "group", "ls"), session);
            DefaultParser parser = new DefaultParser();

            List<Candidate> commands = new ArrayList<>();
            completer.complete(null, parser.parse("g", 1), commands);
            assertEquals(List.of("get", "group", "ls"), commands.stream().map(Candidate::value).toList());

            List<Candidate> paths = new ArrayList<>();
            completer.complete(null, parser.parse("get /comp/al", 12), paths);
            assertEquals(List.of("/comp/alpha", "/comp/alps"), paths.stream().map(Candidate::value).toList());

            List<Candidate> all = new ArrayList<>();
            completer.complete(null, parser.parse("ls /comp/", 9), all);
            assertEquals(List.of("/comp/a b", "/comp/alpha", "/comp/alps", "/comp/beta"),
                    all.stream().map(Candidate::value).toList());

            List<Candidate> none = new ArrayList<>();
            completer.complete(null, parser.parse("ls /no/such/", 12), none);
            assertEquals(List.of(), none);
        }
    }

    @Test
    void tellsTheUserWhenItsSessionExpires(@TempDir Path dir) throws Exception {
        PipedOutputStream keyboard = new PipedOutputStream();
        PipedInputStream in = new PipedInputStream(keyboard);
        ByteArrayOutputStream screen = new ByteArrayOutputStream();
        try (Session session = new Session(ensemble.connectString(), false, Duration.ofSeconds(10));
             Terminal terminal = new DumbTerminal("test", "dumb", in, screen, StandardCharsets.UTF_8)) {
            long first = session.client().sessionId();
            CompletableFuture<Integer> shell =
                    CompletableFuture.supplyAsync(() -> new Shell(terminal, session, dir.resolve("h")).run());
            keyboard.write("create -e /expiring\n".getBytes(StandardCharsets.UTF_8));
            keyboard.flush();
            dev.zkr.cli.Cli.await("the ephemeral", Duration.ofSeconds(20), () -> client.exists("/expiring") != null);
            ensemble.expireSession(first);
            dev.zkr.cli.Cli.await("the notes", Duration.ofSeconds(20), () -> {
                String out = screen.toString(StandardCharsets.UTF_8);
                return out.contains("zkr: new session 0x");
            });
            keyboard.write("ls /\nexit\n".getBytes(StandardCharsets.UTF_8));
            keyboard.flush();
            assertEquals(0, shell.get(20, TimeUnit.SECONDS));
            String out = screen.toString(StandardCharsets.UTF_8);
            assertTrue(out.contains("zkr: session expired: this shell's ephemeral nodes and watches are gone"), out);
            assertTrue(out.contains("zkr: new session 0x" + Long.toHexString(session.client().sessionId())), out);
            assertTrue(session.client().sessionId() != first);
        }
    }

    @Test
    void ctrlCStopsAWatchAndTheShellGoesOnOnTheSameSession(@TempDir Path dir) throws Exception {
        PipedOutputStream keyboard = new PipedOutputStream();
        PipedInputStream in = new PipedInputStream(keyboard);
        ByteArrayOutputStream screen = new ByteArrayOutputStream();
        try (Session session = new Session(ensemble.connectString(), false, Duration.ofSeconds(10));
             Terminal terminal = new DumbTerminal("test", "dumb", in, screen, StandardCharsets.UTF_8)) {
            CompletableFuture<Integer> shell =
                    CompletableFuture.supplyAsync(() -> new Shell(terminal, session, dir.resolve("h")).run());
            keyboard.write("create /w a\nwatch /w\n".getBytes(StandardCharsets.UTF_8));
            keyboard.flush();
            // the note comes after the watch is set on the server: a change made now is seen
            dev.zkr.cli.Cli.await("the watch to start", Duration.ofSeconds(20),
                    () -> screen.toString(StandardCharsets.UTF_8).contains("watching /w (Ctrl-C to stop)"));
            long sessionId = session.client().sessionId();
            client.setData("/w", "changed elsewhere".getBytes(StandardCharsets.UTF_8), -1);
            dev.zkr.cli.Cli.await("the event on the terminal", Duration.ofSeconds(20),
                    () -> screen.toString(StandardCharsets.UTF_8).contains("NODE_DATA_CHANGED /w zxid=0x"));
            int shown = screen.toString(StandardCharsets.UTF_8).length();

            terminal.raise(Terminal.Signal.INT); // Ctrl-C while the watch runs (no line is being read then)
            keyboard.write("get /w\nexit\n".getBytes(StandardCharsets.UTF_8));
            keyboard.flush();

            assertEquals(0, shell.get(20, TimeUnit.SECONDS), screen.toString(StandardCharsets.UTF_8));
            String out = screen.toString(StandardCharsets.UTF_8);
            String after = out.substring(shown).replace("\r", "");
            assertTrue(after.contains("zkr " + ensemble.connectString() + "> "), "no prompt after Ctrl-C: " + out);
            List<String> lines = after.lines().map(l -> l.replaceAll("^(zkr \\S+> )+", "")).toList();
            assertTrue(lines.contains("changed elsewhere"), "get after the watch: " + out);
            assertEquals(1, out.split("NODE_DATA_CHANGED", -1).length - 1, out);
            assertEquals(sessionId, session.client().sessionId(), "the shell kept its session");
            assertTrue(!out.contains("zkr watch:") && !out.contains("zkr get:"), out);
        }
    }

    @Test
    void tabCompletesAPathThroughTheLineReader(@TempDir Path dir) throws Exception {
        client.create("/tabc", new byte[0], CreateMode.PERSISTENT);
        client.create("/tabc/unique-child", "completed".getBytes(StandardCharsets.UTF_8), CreateMode.PERSISTENT);
        String input = "get /tabc/uni\t\nexit\n";
        ByteArrayOutputStream screen = new ByteArrayOutputStream();
        // JLine inserts a Tab as it is on a terminal of type "dumb" (what a pipe gets) and completes on any other
        // type: the same in-memory terminal, typed "xterm", as a user's terminal would be
        try (Session session = new Session(ensemble.connectString(), false, Duration.ofSeconds(10));
             Terminal terminal = new DumbTerminal("test", "xterm", new ByteArrayInputStream(
                     input.getBytes(StandardCharsets.UTF_8)), screen, StandardCharsets.UTF_8)) {
            int code = new Shell(terminal, session, dir.resolve("h")).run();
            assertEquals(0, code, screen.toString(StandardCharsets.UTF_8));
        }
        String out = screen.toString(StandardCharsets.UTF_8).replace("\r", "");
        assertTrue(out.lines().anyMatch(l -> l.endsWith("completed")), out); // after the terminal's escapes
        assertTrue(!out.contains("zkr get:"), out);
        List<String> saved = Files.readAllLines(dir.resolve("h"));
        assertTrue(saved.stream().anyMatch(l -> l.endsWith("get /tabc/unique-child")), saved::toString);
    }
}
