package dev.zkr.bench;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

class EnsembleTest {

    private static final List<Ensemble.Member> MEMBERS = List.of(
            new Ensemble.Member(1, 1, 2, 3), new Ensemble.Member(2, 4, 5, 6), new Ensemble.Member(3, 7, 8, 9));

    private static Optional<RoleLine> zkr(RoleLine.Kind kind, int self, int leader, long epoch) {
        return Optional.of(new RoleLine(kind, self, leader, epoch));
    }

    private static Optional<RoleLine> zk(RoleLine.Kind kind) {
        return Optional.of(new RoleLine(kind, -1, -1, -1));
    }

    @Test
    void oneLeaderFollowedByAllIsFull() {
        assertEquals(2, Ensemble.leaderOfFull(List.of(zk(RoleLine.Kind.FOLLOWING_SYNCED),
                zk(RoleLine.Kind.FOLLOWING_SYNCED), zk(RoleLine.Kind.LEADING_SYNCED)), MEMBERS));
        assertEquals(1, Ensemble.leaderOfFull(List.of(zkr(RoleLine.Kind.FOLLOWING, 1, 2, 5),
                zkr(RoleLine.Kind.LEADING, 2, 2, 5), zkr(RoleLine.Kind.FOLLOWING, 3, 2, 5)), MEMBERS));
    }

    @Test
    void anythingElseIsNotFull() {
        // a member without a role yet
        assertEquals(-1, Ensemble.leaderOfFull(List.of(zk(RoleLine.Kind.FOLLOWING_SYNCED), Optional.empty(),
                zk(RoleLine.Kind.LEADING_SYNCED)), MEMBERS));
        // a candidate
        assertEquals(-1, Ensemble.leaderOfFull(List.of(zkr(RoleLine.Kind.LOOKING, 1, -1, 6),
                zkr(RoleLine.Kind.LEADING, 2, 2, 5), zkr(RoleLine.Kind.FOLLOWING, 3, 2, 5)), MEMBERS));
        // two leaders (an old one that has not stepped down yet)
        assertEquals(-1, Ensemble.leaderOfFull(List.of(zkr(RoleLine.Kind.LEADING, 1, 1, 5),
                zkr(RoleLine.Kind.LEADING, 2, 2, 6), zkr(RoleLine.Kind.FOLLOWING, 3, 2, 6)), MEMBERS));
        // a follower of another leader, or of an older epoch
        assertEquals(-1, Ensemble.leaderOfFull(List.of(zkr(RoleLine.Kind.FOLLOWING, 1, 3, 5),
                zkr(RoleLine.Kind.LEADING, 2, 2, 5), zkr(RoleLine.Kind.FOLLOWING, 3, 2, 5)), MEMBERS));
        assertEquals(-1, Ensemble.leaderOfFull(List.of(zkr(RoleLine.Kind.FOLLOWING, 1, 2, 4),
                zkr(RoleLine.Kind.LEADING, 2, 2, 5), zkr(RoleLine.Kind.FOLLOWING, 3, 2, 5)), MEMBERS));
        // no leader
        assertEquals(-1, Ensemble.leaderOfFull(List.of(zk(RoleLine.Kind.FOLLOWING_SYNCED),
                zk(RoleLine.Kind.FOLLOWING_SYNCED), zk(RoleLine.Kind.FOLLOWING_SYNCED)), MEMBERS));
    }

    @Test
    void roundRobinPlacement() {
        ClientPlacement p = ClientPlacement.roundRobin(List.of("f1", "f2", "l"));
        assertEquals(List.of("f1", "f2", "l", "f1"), List.of(p.connectString(0), p.connectString(1),
                p.connectString(2), p.connectString(3)));
        assertEquals("x", ClientPlacement.single("x").connectString(7));
    }
}
