package dev.zkr.server.zookeeper;

import dev.zkr.server.ServerFixture;
import dev.zkr.server.ZkServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.FourLetterWordMain;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ZooKeeper's four-letter words on a real server's client port, over real sockets and through ZooKeeper's own
 * {@code FourLetterWordMain}: the answers in ZooKeeper 3.9's format, the whitelist ({@code srvr} alone by default,
 * every other word refused with ZooKeeper's line), and the connection closed after each answer.
 */
@Timeout(120)
class FourLetterWordsTest {

    @TempDir
    Path dir;

    /** Sends {@code word} on a raw socket and returns everything the server sends before it closes. */
    private static String ask(ZkServer server, String word) {
        String answer;
        try (ZkSocket s = new ZkSocket(server.port())) {
            s.send(word.getBytes(StandardCharsets.US_ASCII));
            answer = s.readUntilClosed();
        }
        // the server closed the word's connection; it leaves the server's count a moment later, and the next word's
        // count must not include it (a loaded machine answered "Connections: 3")
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (server.clientConnections() > 1 && System.nanoTime() < deadline) {
            Thread.onSpinWait(); // polling the server's count, with a deadline
        }
        return answer;
    }

    private static String mntrValue(String mntr, String key) {
        for (String line : mntr.split("\n")) {
            if (line.startsWith("zk_" + key + "\t")) {
                return line.substring(key.length() + 4);
            }
        }
        throw new AssertionError("no zk_" + key + " in\n" + mntr);
    }

    @Test
    void everyWordIsAnsweredAsZooKeeperAnswersIt() throws Exception {
        try (ZkServer server = ZkServer.start(ServerFixture.config(dir)
                .fourLetterWords(dev.zkr.server.ServerPropertiesAccess.parseWords("*")).build())) {
            // the longest session the server allows: the client pings rarely, so its counts hold still while asked
            ZooKeeper zk = ApacheClients.connect(server.connectString(), 30_000, new ApacheClients.Events());
            try {
                zk.create("/a", new byte[] {1, 2, 3}, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                zk.create("/e", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
                zk.getData("/a", true, null);
                zk.exists("/e", true);
                String sid = Long.toHexString(zk.getSessionId());

                assertEquals("imok", ask(server, "ruok"));
                assertEquals("rw", ask(server, "isro"));

                String srvr = ask(server, "srvr");
                assertTrue(Pattern.compile("^Zookeeper version: 3\\.9\\.3-zkr-\\S+, built on .+\n"
                        + "Latency min/avg/max: \\d+/[\\d.]+/\\d+\nReceived: \\d+\nSent: \\d+\nConnections: 2\n"
                        + "Outstanding: \\d+\nZxid: 0x[0-9a-f]+\nMode: standalone\nNode count: \\d+\n$")
                        .matcher(srvr).matches(), srvr);
                assertTrue(srvr.contains("Zxid: 0x" + Long.toHexString(server.lastZxid()) + "\n"), srvr);

                String stat = ask(server, "stat");
                assertTrue(stat.contains("\nClients:\n /127.0.0.1:"), stat);
                assertTrue(Pattern.compile("\n /127\\.0\\.0\\.1:\\d+\\[1]\\(queued=\\d+,recved=\\d+,sent=\\d+\\)\n")
                        .matcher(stat).find(), stat);
                assertTrue(stat.contains("\nMode: standalone\n"), stat);

                String cons = ask(server, "cons");
                assertTrue(Pattern.compile(" /127\\.0\\.0\\.1:\\d+\\[1]\\(queued=\\d+,recved=\\d+,sent=\\d+,sid=0x"
                        + sid + ",est=\\d+,to=30000\\)\n").matcher(cons).find(), cons);
                assertTrue(cons.endsWith(")\n\n"), cons);

                String mntr = ask(server, "mntr");
                assertTrue(mntr.startsWith("zk_version\t3.9.3-zkr-"), mntr);
                for (String line : List.of("zk_server_state\tstandalone", "zk_watch_count\t2",
                        "zk_ephemerals_count\t1", "zk_global_sessions\t1", "zk_num_alive_connections\t2")) {
                    assertTrue(mntr.contains("\n" + line + "\n"), line + " in\n" + mntr);
                }
                // the latencies of the requests answered so far (the creates waited for their fsync): in ms
                long min = Long.parseLong(mntrValue(mntr, "min_latency"));
                double avg = Double.parseDouble(mntrValue(mntr, "avg_latency"));
                long max = Long.parseLong(mntrValue(mntr, "max_latency"));
                assertTrue(avg > 0 && min <= avg && avg <= max + 1, min + "/" + avg + "/" + max + " in\n" + mntr);
                for (String line : mntr.split("\n")) {
                    assertTrue(line.matches("zk_[a-z_]+\t\\S.*"), "not a mntr line: " + line);
                }

                assertEquals("1 connections watching 2 paths\nTotal watches:2\n", ask(server, "wchs"));

                String conf = ask(server, "conf");
                assertTrue(conf.startsWith("clientPort=" + server.port() + "\nsecureClientPort=-1\ndataDir="), conf);
                assertTrue(conf.contains("\ntickTime=100\nmaxClientCnxns=60\nminSessionTimeout=300\n"
                        + "maxSessionTimeout=30000\nclientPortListenBacklog=1024\nserverId=1\n"), conf);

                String envi = ask(server, "envi");
                assertTrue(envi.startsWith("Environment:\nzookeeper.version=3.9.3-zkr-"), envi);
                assertTrue(envi.contains("\njava.version=" + System.getProperty("java.version") + "\n"), envi);

                String dirs = ask(server, "dirs");
                assertTrue(Pattern.compile("^datadir_size: \\d+\nlogdir_size: [1-9]\\d*\n$").matcher(dirs).matches(),
                        dirs);

                // ZooKeeper's own tool (it appends a newline to every line it reads)
                assertEquals("imok\n", FourLetterWordMain.send4LetterWord("127.0.0.1", server.port(), "ruok"));
                assertTrue(FourLetterWordMain.send4LetterWord("127.0.0.1", server.port(), "mntr")
                        .contains("zk_server_state\tstandalone\n"));
                zk.exists("/", false); // the client was served meanwhile
            } finally {
                zk.close(5_000);
            }
        }
    }

    @Test
    void byDefaultOnlySrvrIsAnswered() throws Exception {
        try (ZkServer server = ZkServer.start(ServerFixture.config(dir).build())) {
            assertTrue(ask(server, "srvr").startsWith("Zookeeper version: 3.9.3-zkr-"));
            for (String word : List.of("ruok", "stat", "mntr", "conf", "cons", "envi", "isro", "wchs", "dirs")) {
                assertEquals(word + " is not executed because it is not in the whitelist.\n", ask(server, word));
            }
            assertEquals("ruok is not executed because it is not in the whitelist.\n",
                    FourLetterWordMain.send4LetterWord("127.0.0.1", server.port(), "ruok"));
        }
    }

    @Test
    void theWhitelistAddsWordsToSrvr() {
        try (ZkServer server = ZkServer.start(ServerFixture.config(dir)
                .fourLetterWords(dev.zkr.server.ServerPropertiesAccess.parseWords(" ruok , mntr,,")).build())) {
            assertEquals("imok", ask(server, "ruok"));
            assertTrue(ask(server, "mntr").startsWith("zk_version\t"));
            assertTrue(ask(server, "srvr").startsWith("Zookeeper version: "));
            assertEquals("envi is not executed because it is not in the whitelist.\n", ask(server, "envi"));
        }
    }
}
