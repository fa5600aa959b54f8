package dev.zkr.bench;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The member configurations the membership rows start: ZooKeeper's static observers, zkr's joiners. */
class MemberConfigTest {

    private static final List<Ensemble.Member> VOTERS = List.of(
            new Ensemble.Member(1, 11, 12, 13), new Ensemble.Member(2, 21, 22, 23), new Ensemble.Member(3, 31, 32, 33));
    private static final Ensemble.Member FOURTH = new Ensemble.Member(4, 41, 42, 43);
    private static final Path DIR = Path.of("d");

    @Test
    void zooKeeperMembersListTheStaticObserversAndAnObserverSaysSo() {
        ServerFlavor.ZooKeeper withObserver = new ServerFlavor.ZooKeeper(List.of(FOURTH));
        String voter = withObserver.memberConfig(VOTERS.get(0), VOTERS, DIR);
        assertTrue(voter.contains("\nserver.1=127.0.0.1:12:13\nserver.2=127.0.0.1:22:23\nserver.3=127.0.0.1:32:33\n"
                + "server.4=127.0.0.1:42:43:observer\n"), voter);
        assertFalse(voter.contains("peerType"), voter);
        String observer = withObserver.memberConfig(FOURTH, VOTERS, DIR);
        assertTrue(observer.contains("server.4=127.0.0.1:42:43:observer\npeerType=observer\n"), observer);
        assertTrue(observer.contains("clientPort=41\n"), observer);
        // without observers a member's zoo.cfg is what the existing ensemble rows have always written
        String plain = new ServerFlavor.ZooKeeper().memberConfig(VOTERS.get(0), VOTERS, DIR);
        assertEquals(voter.replace("server.4=127.0.0.1:42:43:observer\n", ""), plain);
    }

    /** zk-chaos's spares: listed as observers by every member, zkr with observers=, ZooKeeper with :observer. */
    @Test
    void sparesAreListedAsObservers() {
        List<Ensemble.Member> all = new java.util.ArrayList<>(VOTERS);
        all.add(FOURTH);
        String zkr = new ServerFlavor.Zkr(false, List.of("superDigest=super:x"), java.util.Set.of(4))
                .memberConfig(VOTERS.get(0), all, DIR);
        assertTrue(zkr.contains("server.4=127.0.0.1:42:41\nobservers=4\n"), zkr);
        assertFalse(zkr.contains("join"), zkr);
        ServerFlavor.ZooKeeper zk = new ServerFlavor.ZooKeeper(java.util.Set.of(4), List.of("reconfigEnabled=true"));
        String voter = zk.memberConfig(VOTERS.get(0), all, DIR);
        assertTrue(voter.contains("reconfigEnabled=true\n"), voter);
        assertTrue(voter.contains("server.3=127.0.0.1:32:33\nserver.4=127.0.0.1:42:43:observer\n"), voter);
        assertFalse(voter.contains("peerType"), voter);
        String spare = zk.memberConfig(FOURTH, all, DIR);
        assertTrue(spare.contains("server.4=127.0.0.1:42:43:observer\npeerType=observer\n"), spare);
        // a spare started later names the voters in force: 4 a voter now, 1 replaced (an observer line)
        zk.observerIds(java.util.Set.of(1));
        String later = zk.memberConfig(FOURTH, all, DIR);
        assertTrue(later.contains("server.1=127.0.0.1:12:13:observer\n"), later);
        assertTrue(later.contains("server.4=127.0.0.1:42:43\n"), later);
    }

    @Test
    void aZkrJoinerCarriesJoinTheEnsembleIdAndItsOwnLine() {
        ServerFlavor.Zkr zkr = new ServerFlavor.Zkr(false, List.of("superDigest=super:x"));
        String member = zkr.memberConfig(VOTERS.get(0), VOTERS, DIR);
        assertFalse(member.contains("join"), member);
        assertTrue(member.contains("superDigest=super:x\n"), member);
        String joiner = zkr.memberConfig(FOURTH, VOTERS, DIR);
        assertTrue(joiner.contains("serverId=4\n"), joiner);
        assertTrue(joiner.contains("server.3=127.0.0.1:32:31\nserver.4=127.0.0.1:42:41\njoin=true\n"), joiner);
        // the id the voters derive from their name (ensembleName=loopback): "ensemble loopback" per member id
        Map<Integer, String> lines = new TreeMap<>(Map.of(1, "ensemble loopback", 2, "ensemble loopback", 3,
                "ensemble loopback"));
        long id = dev.zkr.server.peer.PeerConfig.ensembleIdOf(lines);
        assertTrue(joiner.contains("ensembleId=" + Long.toHexString(id) + "\n"), joiner);
        assertNotEquals(id, ServerFlavor.Zkr.ensembleId(List.of(VOTERS.get(0), VOTERS.get(1))));
        assertFalse(new ServerFlavor.Zkr().memberConfig(VOTERS.get(0), VOTERS, DIR).contains("superDigest"));
    }
}
