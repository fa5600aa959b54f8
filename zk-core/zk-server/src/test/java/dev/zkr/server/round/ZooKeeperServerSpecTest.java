package dev.zkr.server.round;

import dev.zkr.client.EnsembleMember;
import dev.zkr.client.ZkException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** ZooKeeper's joining-server specs as zkr members, and what is refused (BAD_ARGUMENTS, saying why). */
class ZooKeeperServerSpecTest {

    @Test
    void zooKeepersFormsBecomeMembers() {
        assertEquals(new EnsembleMember(4, EnsembleMember.Role.VOTER, "127.0.0.1", 2888, 2181),
                ZooKeeperServerSpec.parse("server.4=127.0.0.1:2888:3888;2181"));
        assertEquals(new EnsembleMember(4, EnsembleMember.Role.VOTER, "h", 2888, 2181),
                ZooKeeperServerSpec.parse(" server.4 = h:2888:3888:participant;0.0.0.0:2181 "));
        assertEquals(new EnsembleMember(12, EnsembleMember.Role.OBSERVER, "h", 2888, 2181),
                ZooKeeperServerSpec.parse("server.12=h:2888:3888:OBSERVER;h:2181"));
        assertEquals(new EnsembleMember(5, EnsembleMember.Role.VOTER, "::1", 2888, 2181),
                ZooKeeperServerSpec.parse("server.5=[::1]:2888:3888;[::]:2181"));
    }

    @Test
    void whatZkrCannotTakeIsRefusedWithTheReason() {
        String[][] cases = {
                {"server.4=h:2888:3888", "no client port"},
                {"4=h:2888:3888;2181", "is not server.N"},
                {"server.x=h:2888:3888;2181", "is not server.N"},
                {"server.4", "no '='"},
                {"server.4=h:2888;2181", "quorumPort:electionPort"},
                {"server.4=h:2888:3888:leader;2181", "unknown role"},
                {"server.4=h:2888:3888:participant:x;2181", "quorumPort:electionPort"},
                {"server.4=h:0:3888;2181", "quorumPort must be in"},
                {"server.4=h:2888:x;2181", "electionPort 'x'"},
                {"server.4=h:2888:3888;99999", "clientPort must be in"},
                {"server.4=h:2888:3888;other:2181", "is not the server's host"},
                {"server.4=a:2888:3888|b:2888:3888;2181", "several addresses"},
                {"server.4=:2888:3888;2181", "no host"},
        };
        for (String[] c : cases) {
            ZkException.BadArguments e = assertThrows(ZkException.BadArguments.class,
                    () -> ZooKeeperServerSpec.parse(c[0]), c[0]);
            assertTrue(e.getMessage().contains(c[1]), c[0] + ": " + e.getMessage());
            assertTrue(e.getMessage().contains(ZooKeeperServerSpec.FORMAT), e.getMessage());
        }
    }
}
