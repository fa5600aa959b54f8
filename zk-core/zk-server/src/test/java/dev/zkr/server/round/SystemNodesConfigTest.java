package dev.zkr.server.round;

import dev.zkr.client.Stat;
import dev.zkr.server.ServerConfig;
import dev.zkr.client.EnsembleMember;
import dev.zkr.tree.DataTree;
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

    private static dev.zkr.tree.Txn.Membership changed(int clientPortOf5) {
        return new dev.zkr.tree.Txn.Membership(java.util.List.of(
                new EnsembleMember(1, EnsembleMember.Role.VOTER, "127.0.0.1", 22881, 21821),
                new EnsembleMember(2, EnsembleMember.Role.VOTER, "127.0.0.1", 22882, 21822),
                new EnsembleMember(4, EnsembleMember.Role.LEARNER, "127.0.0.1", 22884, 21824),
                new EnsembleMember(5, EnsembleMember.Role.OBSERVER, "127.0.0.1", 22885, clientPortOf5)));
    }

    /**
     * Once the ensemble changed shape, /zookeeper/config shows the membership record the tree applied last, in
     * ZooKeeper's dynamic form: learners and observers as observers (they do not vote), the client port after
     * {@code ;}, {@code version=} the record's zxid in hex; its Stat's mzxid the zxid, mtime the record's time.
     */
    @Test
    void aChangedEnsembleShowsTheMembershipInForce() throws Exception {
        ServerConfig config = ServerConfig.builder(Path.of("unused")).serverId(1)
                .member(1, "127.0.0.1", 22881, 21821).member(2, "127.0.0.1", 22882, 21822)
                .member(3, "127.0.0.1", 22883, 21823).build();
        SystemNodes start = Core.systemNodes(config, 1000);
        assertEquals(start, start.over(null), "never changed: the static text, as before");
        SystemNodes s = start.over(new DataTree.AppliedMembership(0x200000003L, changed(21825), 5555));
        String text = new String(s.data(SystemNodes.CONFIG), StandardCharsets.UTF_8);
        assertEquals("server.1=127.0.0.1:22881:21821:participant;21821\n"
                + "server.2=127.0.0.1:22882:21822:participant;21822\n"
                + "server.4=127.0.0.1:22884:21824:observer;21824\n"
                + "server.5=127.0.0.1:22885:21825:observer;21825\n"
                + "version=200000003", text);
        assertEquals(new Stat(0, 0x200000003L, 0, 0, 5555, -1, 0, -1, 0, text.length(), 0), s.stat(SystemNodes.CONFIG));
        assertEquals(1000, start.over(new DataTree.AppliedMembership(0x200000003L, changed(21825))).stat(
                SystemNodes.CONFIG).mtime(), "a record read from a snapshot: the server's start, as ZooKeeper's");

        // what Curator's EnsembleTracker does with it: ZooKeeper's parser, then a connect string from the client parts
        java.util.Properties p = new java.util.Properties();
        p.load(new java.io.StringReader(text));
        org.apache.zookeeper.server.quorum.flexible.QuorumMaj q =
                new org.apache.zookeeper.server.quorum.flexible.QuorumMaj(p);
        assertEquals(java.util.Set.of(1L, 2L), q.getVotingMembers().keySet());
        assertEquals(java.util.Set.of(4L, 5L), q.getObservingMembers().keySet());
        assertEquals(21824, q.getAllMembers().get(4L).clientAddr.getPort());
        assertEquals(0x200000003L, q.getVersion());
    }

    /** A member whose client port is unknown (a zoo.cfg line without one): no client part for anyone. */
    @Test
    void noClientPartsUnlessEveryClientPortIsKnown() {
        String text = SystemNodes.membership(changed(0), 0x10);
        assertEquals("server.1=127.0.0.1:22881:21821:participant\n"
                + "server.2=127.0.0.1:22882:21822:participant\n"
                + "server.4=127.0.0.1:22884:21824:observer\n"
                + "server.5=127.0.0.1:22885:0:observer\n"
                + "version=10", text);
    }

    /** A standalone server's nodes never show a membership. */
    @Test
    void aStandaloneServerIgnoresMembership() {
        SystemNodes s = SystemNodes.standalone();
        assertEquals(s, s.over(new DataTree.AppliedMembership(5, changed(1))));
    }
}
