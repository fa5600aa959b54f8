package dev.zkr.bench;

import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RoleLineTest {

    private static final String ZK = "15:00:35.083 [QuorumPeer[myid=1](plain=127.0.0.1:21901)(secure=disabled)] INFO "
            + "org.apache.zookeeper.server.quorum.QuorumPeer - Peer state changed: ";

    @Test
    void zooKeeperStateLines() {
        assertEquals(RoleLine.Kind.LOOKING, RoleLine.parseZooKeeper(ZK + "looking").orElseThrow().kind());
        assertEquals(RoleLine.Kind.FOLLOWING, RoleLine.parseZooKeeper(ZK + "following").orElseThrow().kind());
        assertEquals(RoleLine.Kind.LEADING, RoleLine.parseZooKeeper(ZK + "leading").orElseThrow().kind());
        assertEquals(RoleLine.Kind.FOLLOWING_SYNCED,
                RoleLine.parseZooKeeper(ZK + "following - broadcast").orElseThrow().kind());
        assertEquals(RoleLine.Kind.LEADING_SYNCED,
                RoleLine.parseZooKeeper(ZK + "leading - broadcast").orElseThrow().kind());
    }

    @Test
    void zooKeeperIntermediateAndOtherLinesAreIgnored() {
        assertTrue(RoleLine.parseZooKeeper(ZK + "following - discovery").isEmpty());
        assertTrue(RoleLine.parseZooKeeper(ZK + "following - synchronization - diff").isEmpty());
        assertTrue(RoleLine.parseZooKeeper(ZK + "leading - synchronization").isEmpty());
        assertTrue(RoleLine.parseZooKeeper("... INFO org.apache.zookeeper.server.quorum.QuorumPeer - LOOKING").isEmpty());
        assertTrue(RoleLine.parseZooKeeper("role: server 1 is LEADER (leader 1, epoch 2)").isEmpty());
    }

    @Test
    void zkrRoleLines() {
        String prefix = "15:00:35.083 [core] INFO dev.zkr.server.ZkServer - ";
        assertEquals(Optional.of(new RoleLine(RoleLine.Kind.LEADING, 2, 2, 7)),
                RoleLine.parseZkr(prefix + "role: server 2 is LEADER (leader 2, epoch 7)"));
        assertEquals(Optional.of(new RoleLine(RoleLine.Kind.FOLLOWING, 1, 3, 4)),
                RoleLine.parseZkr(prefix + "role: server 1 is FOLLOWER (leader 3, epoch 4)"));
        assertEquals(Optional.of(new RoleLine(RoleLine.Kind.LOOKING, 3, -1, 4)),
                RoleLine.parseZkr(prefix + "role: server 3 is CANDIDATE (leader -1, epoch 4)"));
        assertEquals(Optional.of(new RoleLine(RoleLine.Kind.LOOKING, 1, -1, 4)),
                RoleLine.parseZkr(prefix + "role: server 1 is FOLLOWER (leader -1, epoch 4)"));
        assertTrue(RoleLine.parseZkr(prefix + "role: server 3 is OBSERVER (leader 1, epoch 4)").isEmpty());
        assertTrue(RoleLine.parseZkr(ZK + "leading").isEmpty());
    }
}
