package dev.zkr.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EpochTableTest {
    static long z(long e, long c) {
        return Zxid.of(e, c);
    }

    static EpochTable table(long... zxids) {
        EpochTable.Builder b = new EpochTable.Builder();
        for (long x : zxids) {
            b.add(x);
        }
        return b.build();
    }

    @Test
    void keepsTheLastZxidOfEachEpoch() {
        EpochTable t = table(z(1, 0), z(1, 1), z(1, 2), z(2, 0), z(4, 0), z(4, 1));
        assertEquals(z(1, 2), t.lastOf(1));
        assertEquals(z(2, 0), t.lastOf(2));
        assertEquals(Zxid.NONE, t.lastOf(3));
        assertEquals(z(4, 1), t.lastOf(4));
        assertThrows(IllegalArgumentException.class, () -> table(z(2, 0), z(1, 5)));
    }

    @Test
    void zookeeper2832ExampleTruncatesToTheSharedEpochNotToASnapshot() {
        // B = ...(1,2)(2,0)(2,1), C = ...(1,2)(3,0)(4,0): the common prefix is (1,2)
        // (docs/replication.md, Common prefix)
        EpochTable b = table(z(1, 0), z(1, 1), z(1, 2), z(2, 0), z(2, 1));
        EpochTable c = table(z(1, 0), z(1, 1), z(1, 2), z(3, 0), z(4, 0));
        assertEquals(z(1, 2), c.commonPrefix(b, z(1, 1)));
        assertEquals(z(1, 2), c.commonPrefix(b.above(z(1, 1)), z(1, 1)));
    }

    @Test
    void commonPrefixIsAtLeastTheFollowersCommitPoint() {
        EpochTable leader = table(z(3, 0), z(3, 1));
        EpochTable follower = table(z(2, 0), z(2, 7));
        assertEquals(z(2, 5), leader.commonPrefix(follower, z(2, 5)));
        assertEquals(z(3, 1), leader.commonPrefix(table(z(3, 0), z(3, 1), z(3, 2)), 0));
        assertEquals(z(3, 1), table(z(3, 0), z(3, 1), z(3, 2)).commonPrefix(leader, 0));
    }

    @Test
    void clipAndAbove() {
        EpochTable t = table(z(1, 0), z(1, 4), z(2, 0), z(2, 3), z(5, 0));
        assertEquals(table(z(1, 4), z(2, 1)), t.clippedTo(z(2, 1)));
        assertEquals(table(z(1, 2)), t.clippedTo(z(1, 2)));
        assertEquals(table(z(2, 3), z(5, 0)), t.above(z(1, 4)));
        assertEquals(t, t.above(0));
        assertEquals(EpochTable.of(List.of(new Entry(z(1, 0), new byte[0]))), table(z(1, 0)));
    }

    @Test
    void quorumIsAMajorityAndCommitsTheMedianMatch() {
        Quorum q = new Quorum(List.of(0, 1, 2, 3, 4));
        assertEquals(3, q.majority());
        assertEquals(z(1, 3), q.committed(Map.of(0, z(1, 5), 1, z(1, 3), 2, z(1, 9), 3, z(1, 1))));
        assertEquals(0, new Quorum(List.of(0, 1, 2)).committed(Map.of(0, z(1, 1))));
        assertEquals(z(1, 1), new Quorum(List.of(7)).committed(Map.of(7, z(1, 1))));
        assertEquals(true, q.reached(List.of(0, 3, 4)));
        assertEquals(false, q.reached(List.of(0, 3, 9)));
        assertThrows(IllegalArgumentException.class, () -> new Quorum(List.of(1, 1)));
    }
}
