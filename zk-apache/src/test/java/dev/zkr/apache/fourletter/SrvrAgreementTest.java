package dev.zkr.apache.fourletter;

import dev.zkr.apache.ApacheZkClient;
import dev.zkr.apache.EmbeddedZooKeeper;
import dev.zkr.client.CreateMode;
import dev.zkr.client.ZkClient;
import dev.zkr.testkit.TestEnsemble;
import org.apache.zookeeper.client.FourLetterWordMain;
import org.junit.jupiter.api.Test;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code srvr}, the one four-letter word every ZooKeeper answers, asked of zkr and of ZooKeeper 3.9.3 holding the
 * same tree: the same node count (ZooKeeper counts the root twice and its three {@code /zookeeper} nodes), the same mode,
 * a latency line of numbers.
 */
class SrvrAgreementTest {

    private static final Pattern NODE_COUNT = Pattern.compile("\nNode count: (\\d+)\n");

    private static int nodeCount(String srvr) {
        Matcher m = NODE_COUNT.matcher(srvr);
        assertTrue(m.find(), srvr);
        return Integer.parseInt(m.group(1));
    }

    private static String srvr(String connectString) throws Exception {
        int colon = connectString.lastIndexOf(':');
        return FourLetterWordMain.send4LetterWord(connectString.substring(0, colon),
                Integer.parseInt(connectString.substring(colon + 1)), "srvr");
    }

    private static void populate(ZkClient c) {
        c.create("/a", new byte[] {1}, CreateMode.PERSISTENT);
        c.create("/a/b", new byte[] {2}, CreateMode.PERSISTENT);
        c.create("/e", new byte[0], CreateMode.EPHEMERAL);
    }

    @Test
    void srvrCountsNodesAsZooKeeperDoes() throws Exception {
        try (TestEnsemble zkr = TestEnsemble.builder().servers(1).start();
             EmbeddedZooKeeper zooKeeper = EmbeddedZooKeeper.start()) {
            assertEquals(nodeCount(srvr(zooKeeper.connectString())), nodeCount(srvr(zkr.connectString())),
                    "an empty server");
            try (ZkClient a = ApacheZkClient.builder().connectString(zooKeeper.connectString()).build();
                 ZkClient b = ApacheZkClient.builder().connectString(zkr.connectString()).build()) {
                populate(a);
                populate(b);
                String onZooKeeper = srvr(zooKeeper.connectString());
                String onZkr = srvr(zkr.connectString());
                assertEquals(nodeCount(onZooKeeper), nodeCount(onZkr), onZooKeeper + "\n---\n" + onZkr);
                assertEquals(8, nodeCount(onZkr), "the root (twice, as ZooKeeper maps it under \"\" and \"/\"), "
                        + "/zookeeper's three, /a, /a/b, /e");
                assertTrue(onZkr.contains("\nMode: standalone\n") && onZooKeeper.contains("\nMode: standalone\n"));
                assertTrue(Pattern.compile("\nLatency min/avg/max: \\d+/\\d+(\\.\\d+)?/\\d+\n").matcher(onZkr).find(),
                        onZkr);
            }
        }
    }
}
