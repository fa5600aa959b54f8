package dev.zkr.apache.reconfig;

import dev.zkr.client.Acls;
import dev.zkr.client.EnsembleMember;
import dev.zkr.server.ServerConfig;
import dev.zkr.server.ZkServer;
import dev.zkr.testkit.TestEnsemble;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeperMain;
import org.apache.zookeeper.admin.ZooKeeperAdmin;
import org.apache.zookeeper.cli.CliCommand;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ZooKeeper 3.9's own reconfig on a zkr ensemble (docs/membership.md, ZooKeeper clients): {@link ZooKeeperAdmin}
 * and the shell's {@code reconfig -add / -remove} ({@link ZooKeeperMain}), with ZooKeeper's guards (reconfigEnabled,
 * the superuser, the config version, one server at a time), the answer (the new /zookeeper/config and its Stat) and
 * the data watch on /zookeeper/config.
 */
@Timeout(120)
class ZooKeeperReconfigTest {

    private static final byte[] SUPER = "super:admin".getBytes(StandardCharsets.UTF_8);
    private static final long WAIT_S = 30;

    /** A ZooKeeperAdmin session on {@code connect}, connected; {@code events} gets its watch events. */
    private static ZooKeeperAdmin admin(String connect, boolean superuser, BlockingQueue<WatchedEvent> events)
            throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeperAdmin zk = new ZooKeeperAdmin(connect, 30_000, e -> {
            if (e.getState() == Watcher.Event.KeeperState.SyncConnected && e.getType() == Watcher.Event.EventType.None) {
                connected.countDown();
            } else if (events != null && e.getType() != Watcher.Event.EventType.None) {
                events.add(e);
            }
        });
        assertTrue(connected.await(WAIT_S, TimeUnit.SECONDS), "connected to " + connect);
        if (superuser) {
            zk.addAuthInfo("digest", SUPER);
        }
        return zk;
    }

    private static TestEnsemble.Builder ensemble(int servers, boolean reconfigEnabled) {
        return TestEnsemble.builder().servers(servers).superDigest(Acls.generateDigest("super:admin"))
                .configure(b -> b.reconfigEnabled(reconfigEnabled));
    }

    @Test
    void withoutReconfigEnabledReconfigIsDisabledAndAStandaloneServerHasNone() throws Exception {
        try (TestEnsemble off = ensemble(3, false).start(); TestEnsemble alone = ensemble(1, true).start()) {
            ZooKeeperAdmin su = admin(off.connectString(0), true, null);
            assertThrows(KeeperException.ReconfigDisabledException.class,
                    () -> su.reconfigure(null, "3", null, -1, null));
            su.close();
            ZooKeeperAdmin standalone = admin(alone.connectString(0), true, null);
            assertThrows(KeeperException.UnimplementedException.class,
                    () -> standalone.reconfigure(null, "3", null, -1, null), "as ZooKeeper's standalone server");
            standalone.close();
        }
    }

    @Test
    void theAdminApiRemovesAMemberAndTheShellAddsAndRemovesAServer(@TempDir Path dir) throws Exception {
        try (TestEnsemble e = ensemble(3, true).start()) {
            int leader = e.leader();
            int at = (leader + 1) % 3;
            int victim = (leader + 2) % 3;
            BlockingQueue<WatchedEvent> events = new LinkedBlockingQueue<>();
            ZooKeeperAdmin anyone = admin(e.connectString(at), false, events);
            Stat before = new Stat();
            String config = new String(anyone.getConfig(true, before), StandardCharsets.UTF_8);
            assertTrue(config.endsWith("version=0"), config);
            assertEquals(0, before.getMzxid());

            // the guards, each a typed error
            assertThrows(KeeperException.NoAuthException.class,
                    () -> anyone.reconfigure(null, String.valueOf(victim + 1), null, -1, null));
            ZooKeeperAdmin su = admin(e.connectString(at), true, null);
            KeeperException two = assertThrows(KeeperException.BadArgumentsException.class, () -> su.reconfigure(
                    "server.7=127.0.0.1:1:2;3,server.8=127.0.0.1:4:5;6", null, null, -1, null));
            assertNotNull(two.getMessage());
            assertThrows(KeeperException.BadArgumentsException.class,
                    () -> su.reconfigure("server.7=127.0.0.1:1:2;3", "2", null, -1, null), "one joining, one leaving");
            assertThrows(KeeperException.BadArgumentsException.class,
                    () -> su.reconfigure(null, null, "server.1=127.0.0.1:1:2;3", -1, null), "non-incremental");
            assertThrows(KeeperException.BadArgumentsException.class,
                    () -> su.reconfigure("server.7=127.0.0.1:1:2", null, null, -1, null), "no client port");
            assertThrows(KeeperException.BadVersionException.class,
                    () -> su.reconfigure(null, String.valueOf(victim + 1), null, 5, null));
            assertTrue(events.isEmpty(), "nothing changed: " + events);

            // a removal from the member lines' version 0: the answer is the new /zookeeper/config and its Stat
            Stat stat = new Stat();
            byte[] answer = su.reconfigure(null, String.valueOf(victim + 1), null, 0, stat);
            String text = new String(answer, StandardCharsets.UTF_8);
            assertFalse(text.contains("server." + (victim + 1) + "="), text);
            for (int i : new int[] {leader, at}) {
                assertTrue(text.contains("server." + (i + 1) + "=127.0.0.1:"), text);
                assertTrue(text.contains(":" + e.port(i) + ":participant;" + e.port(i) + "\n"), text);
            }
            assertTrue(stat.getMzxid() > 0, stat.toString());
            assertTrue(text.endsWith("\nversion=" + Long.toHexString(stat.getMzxid())), text);
            assertEquals(-1, stat.getVersion());
            assertEquals(answer.length, stat.getDataLength());
            WatchedEvent changed = events.poll(WAIT_S, TimeUnit.SECONDS);
            assertNotNull(changed, "the data watch on /zookeeper/config fires");
            assertEquals(Watcher.Event.EventType.NodeDataChanged, changed.getType());
            assertEquals("/zookeeper/config", changed.getPath());
            Stat read = new Stat();
            assertArrayEquals(answer, anyone.getConfig(false, read), "a read shows what the reconfig answered");
            assertEquals(stat, read);
            assertThrows(KeeperException.BadVersionException.class,
                    () -> su.reconfigure(null, String.valueOf(leader + 1), null, 0, null), "version 0 is gone");

            // the shell: a fourth server, started to join, added as a participant (a learner until it caught up)
            int peer = freePort();
            int client = freePort();
            List<ServerConfig.Member> lines = new ArrayList<>();
            e.server(at).membership().members().forEach(m -> lines.add(
                    new ServerConfig.Member(m.id(), m.host(), m.peerPort(), m.clientPort())));
            lines.add(new ServerConfig.Member(4, "127.0.0.1", peer, client));
            ServerConfig fourthConfig = ServerConfig.builder(dir.resolve("server-4")).serverId(4).port(client)
                    .members(lines).join(true).ensembleId(e.server(at).ensembleId()).reconfigEnabled(true)
                    .electionTimeout(Duration.ofSeconds(1)).heartbeatInterval(Duration.ofMillis(100))
                    .minSessionTimeout(Duration.ofSeconds(4)).build();
            try (ZkServer fourth = ZkServer.start(fourthConfig)) {
                anyone.getConfig(true, null); // watch again
                String spec = "server.4=127.0.0.1:" + peer + ":" + client + ":participant;" + client;
                String added = shell(e.connectString(at), "reconfig -add " + spec);
                assertTrue(added.contains("Committed new configuration:\n"), added);
                assertTrue(added.contains("server.4=127.0.0.1:" + peer + ":" + client + ":observer;" + client),
                        "a learner until promoted, shown as an observer (it does not vote yet): " + added);
                // the promotion is a record of its own: /zookeeper/config's watch fires for each
                String now = awaitConfig(anyone, events, "server.4=127.0.0.1:" + peer + ":" + client
                        + ":participant;" + client);
                assertTrue(now.contains("server.4="), now);

                String removed = shell(e.connectString(at), "reconfig -remove 4");
                assertTrue(removed.contains("Committed new configuration:\n"), removed);
                assertFalse(removed.contains("server.4="), removed);
                String refused = shell(e.connectString(at), "reconfig -add server.8=127.0.0.1:1:2;3,"
                        + "server.9=127.0.0.1:4:5;6");
                assertTrue(refused.contains("Arguments are not valid"), refused); // zkCli's words for BADARGUMENTS
                fourth.awaitMembership(m -> m.member(4) == null).get(WAIT_S, TimeUnit.SECONDS);
            }
            su.close();
            anyone.close();
        }
    }

    @Test
    void anObserverJoiningAsAParticipantIsPromoted() throws Exception {
        try (TestEnsemble e = ensemble(3, true).start()) {
            int o = e.addObserver();
            int id = o + 1;
            EnsembleMember m = e.server(o).membership().member(id);
            String observer = "server." + id + "=127.0.0.1:" + m.peerPort() + ":" + m.clientPort();
            ZooKeeperAdmin su = admin(e.connectString(o), true, null);
            String shown = new String(su.getConfig(false, null), StandardCharsets.UTF_8);
            assertTrue(shown.contains(observer + ":observer;" + m.clientPort() + "\n"), shown);
            assertThrows(KeeperException.BadArgumentsException.class, () -> su.reconfigure("server." + id
                    + "=127.0.0.1:" + (m.peerPort() + 1) + ":1:participant;" + m.clientPort(), null, null, -1, null),
                    "a promotion keeps the observer's addresses");
            String after = new String(su.reconfigure(observer + ":participant;" + m.clientPort(), null, null, -1,
                    null), StandardCharsets.UTF_8);
            assertTrue(after.contains(observer + ":participant;" + m.clientPort() + "\n"), after);
            assertEquals(EnsembleMember.Role.VOTER, e.server(o).membership().member(id).role());
            assertTrue(e.voters().contains(o), e.voters().toString());
            su.close();
        }
    }

    /** Reads /zookeeper/config with a watch until it contains {@code wanted}, waiting for the watch in between. */
    private static String awaitConfig(ZooKeeperAdmin zk, BlockingQueue<WatchedEvent> events, String wanted)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
        while (true) {
            events.clear();
            String text = new String(zk.getConfig(true, null), StandardCharsets.UTF_8);
            if (text.contains(wanted)) {
                return text;
            }
            long left = deadline - System.nanoTime();
            assertTrue(left > 0 && events.poll(left, TimeUnit.NANOSECONDS) != null,
                    "no /zookeeper/config with <" + wanted + "> within " + WAIT_S + " s: " + text);
        }
    }

    /**
     * One line in a new zkCli session (ZooKeeperMain) as the superuser: what the shell printed (its commands print
     * to the stream they were created with; errors go to System.err).
     */
    private static String shell(String connect, String line) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream ps = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        PrintStream err = System.err;
        List<CliCommand> commands = commands();
        ZooKeeperMain shell = null;
        try {
            commands.forEach(c -> {
                c.setOut(ps);
                c.setErr(ps);
            });
            System.setErr(ps);
            shell = new ZooKeeperMain(new String[] {"-server", connect, "-waitforconnection"});
            shell.executeLine("addauth digest super:admin");
            bytes.reset();
            shell.executeLine(line);
        } finally {
            System.setErr(err);
            commands.forEach(c -> {
                c.setOut(System.out);
                c.setErr(System.err);
            });
            if (shell != null) {
                shell.executeLine("close");
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @SuppressWarnings("unchecked")
    private static List<CliCommand> commands() throws ReflectiveOperationException {
        Field f = ZooKeeperMain.class.getDeclaredField("commandMapCli");
        f.setAccessible(true);
        return new ArrayList<>(((Map<String, CliCommand>) f.get(null)).values());
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
