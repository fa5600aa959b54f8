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
        // the same text with its election ports in the third field; zkr's one peer port stands for both
        String text = new String(s.data(SystemNodes.CONFIG), StandardCharsets.UTF_8);
        assertEquals("server.1=127.0.0.1:22881:22881:participant\n"
                + "server.2=127.0.0.1:22882:22882:participant\n"
                + "server.3=127.0.0.1:22883:22883:participant\n"
                + "version=0", text);
        assertEquals(new Stat(0, 0, 0, 0, 1_795_923_574_103L, -1, 0, -1, 0, text.length(), 0),
                s.stat(SystemNodes.CONFIG), "version -1, aversion -1, mtime the server's start, as ZooKeeper's");
    }
}
