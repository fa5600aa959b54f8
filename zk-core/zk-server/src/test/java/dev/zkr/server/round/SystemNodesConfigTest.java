package dev.zkr.server.round;

import dev.zkr.client.Stat;
import dev.zkr.server.ServerConfig;
import dev.zkr.tree.SystemNodes;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** What /zookeeper/config holds on a standalone server and on an ensemble member. */
class SystemNodesConfigTest {

    @Test
    void aStandaloneServerShowsAnEmptyConfig() {
        SystemNodes s = Core.systemNodes(ServerConfig.builder(Path.of("unused")).build(), 1234);
        assertEquals(0, s.data(SystemNodes.CONFIG).length);
        assertEquals(new Stat(0, 0, 0, 0, 0, 0, 0, -1, 0, 0, 0), s.stat(SystemNodes.CONFIG));
    }

    @Test
    void anEnsembleMemberShowsItsMembersAsZooKeeperShowsAStaticConfiguration() {
        ServerConfig config = ServerConfig.builder(Path.of("unused")).serverId(2)
                .member(1, "127.0.0.1", 22881, 21821).member(2, "127.0.0.1", 22882, 21822)
                .member(3, "127.0.0.1", 22883, 21823).build();
        SystemNodes s = Core.systemNodes(config, 1_795_923_574_103L);
        // ZooKeeper 3.9.3 (QuorumPeerMain, static zoo.cfg with server.N=127.0.0.1:2288N:2388N and clientPort) shows
        // the same text with its election ports in the third field; zkr has none and puts the client port there
        String text = new String(s.data(SystemNodes.CONFIG), StandardCharsets.UTF_8);
        assertEquals("server.1=127.0.0.1:22881:21821:participant\n"
                + "server.2=127.0.0.1:22882:21822:participant\n"
                + "server.3=127.0.0.1:22883:21823:participant\n"
                + "version=0", text);
        assertEquals(new Stat(0, 0, 0, 0, 1_795_923_574_103L, -1, 0, -1, 0, text.length(), 0),
                s.stat(SystemNodes.CONFIG), "version -1, aversion -1, mtime the server's start, as ZooKeeper's");
    }

    /**
     * Curator's EnsembleTracker reads /zookeeper/config on every connection and parses it with ZooKeeper's own
     * QuorumMaj; a line it refuses makes Curator log an error each time (seen in zk-bench's ensemble run when the
     * peer port stood in both port fields: "Client and election port must be different").
     */
    @Test
    void zooKeepersOwnParserTakesTheEnsembleText() throws Exception {
        ServerConfig config = ServerConfig.builder(Path.of("unused")).serverId(1)
                .member(1, "127.0.0.1", 22881, 21821).member(2, "127.0.0.1", 22882, 21822)
                .member(3, "127.0.0.1", 22883, 21823).build();
        String text = new String(Core.systemNodes(config, 0).data(SystemNodes.CONFIG), StandardCharsets.UTF_8);
        java.util.Properties p = new java.util.Properties();
        p.load(new java.io.StringReader(text));
        org.apache.zookeeper.server.quorum.flexible.QuorumMaj q =
                new org.apache.zookeeper.server.quorum.flexible.QuorumMaj(p);
        assertEquals(3, q.getVotingMembers().size());
        assertEquals(22882, q.getVotingMembers().get(2L).addr.getReachableOrOne().getPort());
    }
}
