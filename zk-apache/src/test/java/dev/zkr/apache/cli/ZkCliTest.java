package dev.zkr.apache.cli;

import dev.zkr.apache.EmbeddedZooKeeper;
import dev.zkr.testkit.TestEnsemble;
import org.apache.zookeeper.ZooKeeperMain;
import org.apache.zookeeper.cli.CliCommand;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ZooKeeper 3.9's own shell, {@code zkCli.sh}'s class {@link ZooKeeperMain}, scripted through one session against a
 * zkr server and against Apache ZooKeeper: every line must print the same on both, but for zxids, times and session
 * ids (masked). The watch events the shell prints are compared too, in order. Each script line says how many watch
 * events it triggers; the test waits (bounded) for them before the next line, as a user at the prompt would.
 */
class ZkCliTest {

    private static final Duration EVENTS_WITHIN = Duration.ofSeconds(10);

    private static TestEnsemble zkr;
    private static EmbeddedZooKeeper zooKeeper;

    @BeforeAll
    static void start() {
        zkr = TestEnsemble.builder().servers(1).start();
        zooKeeper = EmbeddedZooKeeper.start();
    }

    @AfterAll
    static void stop() {
        try {
            if (zooKeeper != null) {
                zooKeeper.close();
            }
        } finally {
            if (zkr != null) {
                zkr.close();
            }
        }
    }

    /** A script line and the number of watch events it fires in the shell's session. */
    private record Line(String command, int events) {
    }

    private static Line l(String command) {
        return new Line(command, 0);
    }

    private static Line l(String command, int events) {
        return new Line(command, events);
    }

    /** The script: every command of the list, and the errors a user meets most. */
    private static final List<Line> SCRIPT = List.of(
            l("create /cli top"),
            l("create /cli top"),
            l("create -c /cli/container"),
            l("create /cli/container/child x"),
            l("create -s -e /cli/eph- e"),
            l("create -s /cli/seq- s"),
            l("create -e /cli/eph-plain"),
            l("create -t 3600000 /cli/ttl t"),
            l("create -s -t 3600000 /cli/ttl- ts"),
            l("create -t 0 /cli/ttl-bad"),
            l("stat /cli/ttl"),
            l("ls -R /cli"),
            l("ls -s /cli"),
            l("stat /cli"),
            l("stat /cli/container"),
            l("get -s /cli/seq-0000000002"),
            l("stat /cli/eph-plain"),
            l("get /cli/missing"),
            l("get -w /cli"),
            l("set /cli changed", 1),
            l("get /cli"),
            l("ls -w /cli"),
            l("create /cli/w w", 1),
            l("addWatch -m PERSISTENT_RECURSIVE /cli"),
            l("create /cli/deep d", 1),
            l("create /cli/deep/er r", 1),
            l("set /cli/deep/er r2", 1),
            l("delete /cli/deep/er", 1),
            l("removewatches /cli -a", 1),
            l("set /cli/deep unwatched"),
            l("getEphemerals /cli"),
            l("getEphemerals"),
            l("getAllChildrenNumber /cli"),
            l("getAllChildrenNumber /cli/missing"),
            l("whoami"),
            l("addauth digest user1:pw1"),
            l("whoami"),
            l("create /cli/acl a"),
            l("setAcl /cli/acl auth:user1:pw1:cdrwa"),
            l("getAcl /cli/acl"),
            l("setAcl /cli/acl world:anyone:r"),
            l("getAcl /cli/acl"),
            l("set /cli/acl denied"),
            l("sync /cli"),
            l("delete /cli"),
            l("deleteall /cli"),
            l("ls /cli"),
            l("ls /"),
            l("get /zookeeper/config"),
            l("config"));

    @Test
    void theShellPrintsTheSameOnZkrAsOnZooKeeper() throws Exception {
        List<String> onZooKeeper = run(zooKeeper.connectString());
        List<String> onZkr = run(zkr.connectString());
        for (int i = 0; i < SCRIPT.size(); i++) {
            assertEquals(onZooKeeper.get(i), onZkr.get(i), "line " + i + " `" + SCRIPT.get(i).command()
                    + "` prints differently\n--- on ZooKeeper:\n" + String.join("\n", onZooKeeper)
                    + "\n--- on zkr:\n" + String.join("\n", onZkr));
        }
        // "Both printed nothing" must not pass: what the script is about shows on zkr.
        String all = String.join("\n", onZkr);
        for (String expected : List.of("Created /cli/eph-0000000001", "Created /cli/ttl-0000000005",
                "Node already exists: /cli",
                "Node does not exist: /cli/missing", "type:NodeDataChanged path:/cli", "type:NodeChildrenChanged path:/cli",
                "type:NodeCreated path:/cli/deep/er", "type:NodeDeleted path:/cli/deep/er", "digest: user1",
                "'digest,'user1:", "Node not empty: /cli", "ephemeralOwner = <session>", "[zookeeper]")) {
            assertTrue(all.contains(expected), "zkr's transcript lacks <" + expected + ">:\n" + all);
        }
    }

    /** Runs the script in a new shell session on the server; one normalised block of output per line. */
    private static List<String> run(String connectString) throws Exception {
        Capture capture = new Capture();
        PrintStream out = System.out;
        PrintStream err = System.err;
        PrintStream ps = new PrintStream(capture, true, StandardCharsets.UTF_8);
        System.setOut(ps);
        System.setErr(ps);
        List<CliCommand> commands = commands();
        commands.forEach(c -> {
            c.setOut(ps);
            c.setErr(ps);
        });
        List<String> blocks = new ArrayList<>();
        ZooKeeperMain shell = null;
        try {
            shell = new ZooKeeperMain(new String[] {"-server", connectString, "-waitforconnection"});
            capture.takeCommandOutput();
            capture.takeEventOutput();
            int eventsSeen = capture.events();
            for (Line line : SCRIPT) {
                shell.executeLine(line.command());
                eventsSeen += line.events();
                capture.awaitEvents(eventsSeen, line.command());
                blocks.add(mask(capture.takeCommandOutput() + capture.takeEventOutput()));
            }
        } finally {
            if (shell != null) {
                shell.executeLine("close");
            }
            commands.forEach(c -> {
                c.setOut(out);
                c.setErr(err);
            });
            System.setOut(out);
            System.setErr(err);
        }
        return blocks;
    }

    @SuppressWarnings("unchecked")
    private static List<CliCommand> commands() throws ReflectiveOperationException {
        // The shell's commands are created once, with System.out and System.err as they were then.
        Field f = ZooKeeperMain.class.getDeclaredField("commandMapCli");
        f.setAccessible(true);
        return new ArrayList<>(((Map<String, CliCommand>) f.get(null)).values());
    }

    private static final Pattern ZXID = Pattern.compile("(cZxid|mZxid|pZxid) = 0x[0-9a-f]+");
    private static final Pattern TIME = Pattern.compile("(ctime|mtime) = .*");
    private static final Pattern OWNER = Pattern.compile("ephemeralOwner = 0x(?!0\\b)(?!8000000000000000\\b)[0-9a-f]+");
    private static final Pattern EVENT_ZXID = Pattern.compile("zxid: -?\\d+");

    private static String mask(String s) {
        s = ZXID.matcher(s).replaceAll("$1 = <zxid>");
        s = TIME.matcher(s).replaceAll("$1 = <time>");
        s = OWNER.matcher(s).replaceAll("ephemeralOwner = <session>");
        return EVENT_ZXID.matcher(s).replaceAll("zxid: <zxid>").strip();
    }

    /**
     * System.out and System.err of the shell, split by thread: what its event thread prints (the watch events) apart
     * from what the commands print, since the two interleave by timing alone. Connection-state events
     * ({@code type:None}) are dropped: their timing differs and they are no script line's output.
     */
    private static final class Capture extends OutputStream {
        private final ByteArrayOutputStream commandBytes = new ByteArrayOutputStream();
        private final ByteArrayOutputStream eventBytes = new ByteArrayOutputStream();
        /** Watch events (not connection-state events) taken out of eventBytes so far. */
        private final List<String> events = new ArrayList<>();
        private int eventsTaken;

        private static boolean eventThread() {
            return Thread.currentThread().getName().endsWith("-EventThread");
        }

        @Override
        public synchronized void write(int b) {
            (eventThread() ? eventBytes : commandBytes).write(b);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            (eventThread() ? eventBytes : commandBytes).write(b, off, len);
        }

        /** Moves the complete event lines printed so far into {@link #events}; returns how many there are. */
        synchronized int events() {
            String s = eventBytes.toString(StandardCharsets.UTF_8);
            int end = s.lastIndexOf('\n');
            if (end < 0) {
                return events.size();
            }
            for (String line : s.substring(0, end).split("\n")) {
                if (line.startsWith("WatchedEvent") && !line.contains("type:None")) {
                    events.add("WATCHER:: " + line);
                }
            }
            eventBytes.reset();
            eventBytes.writeBytes(s.substring(end + 1).getBytes(StandardCharsets.UTF_8));
            return events.size();
        }

        void awaitEvents(int n, String line) {
            long deadline = System.nanoTime() + EVENTS_WITHIN.toNanos();
            while (events() < n) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("`" + line + "`: " + events() + " watch events after "
                            + EVENTS_WITHIN.toSeconds() + " s, expected " + n);
                }
                LockSupport.parkNanos(1_000_000); // polling the shell's event thread's output
            }
        }

        synchronized String takeCommandOutput() {
            String s = commandBytes.toString(StandardCharsets.UTF_8);
            commandBytes.reset();
            return s;
        }

        /** The watch events since the last call, one line each. */
        synchronized String takeEventOutput() {
            events();
            List<String> fresh = events.subList(eventsTaken, events.size());
            eventsTaken = events.size();
            return fresh.isEmpty() ? "" : "\n" + String.join("\n", fresh);
        }
    }
}
