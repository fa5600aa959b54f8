package dev.zkr.bench;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class GapBreakdownTest {

    private static final long MS = 1_000_000L;

    private static GapBreakdown.Seen seen(int member, long ms, RoleLine.Kind kind) {
        return new GapBreakdown.Seen(member, new RoleLog.Event(ms * MS, new RoleLine(kind, -1, -1, -1)));
    }

    @Test
    void zooKeeperShapeSplitsEveryPhase() {
        // fault at 1,000 ms; a survivor looks at 1,080, leads at 1,540, broadcast at 1,730; write acked at 3,200
        GapBreakdown g = GapBreakdown.of(1000 * MS, 3200 * MS, List.of(
                seen(0, 900, RoleLine.Kind.FOLLOWING_SYNCED), // before the fault: ignored
                seen(1, 1540, RoleLine.Kind.LEADING),
                seen(0, 1100, RoleLine.Kind.LOOKING),
                seen(1, 1080, RoleLine.Kind.LOOKING),
                seen(0, 1545, RoleLine.Kind.FOLLOWING),
                seen(0, 1700, RoleLine.Kind.FOLLOWING_SYNCED),
                seen(1, 1730, RoleLine.Kind.LEADING_SYNCED)));
        assertEquals(2200.0, g.gapMs());
        assertEquals(80.0, g.detectionMs());
        assertEquals(460.0, g.electionMs());
        assertEquals(1660.0, g.syncAndWriteMs());
        assertEquals(190.0, g.syncMs());
        assertEquals(1470.0, g.writeAfterSyncMs());
        assertEquals(1, g.newLeader());
    }

    @Test
    void zkrShapeHasNoSyncSplit() {
        GapBreakdown g = GapBreakdown.of(1000 * MS, 1040 * MS, List.of(
                seen(0, 1002, RoleLine.Kind.LOOKING),
                seen(0, 1015, RoleLine.Kind.LEADING),
                seen(1, 1016, RoleLine.Kind.FOLLOWING)));
        assertEquals(40.0, g.gapMs());
        assertEquals(2.0, g.detectionMs());
        assertEquals(13.0, g.electionMs());
        assertEquals(25.0, g.syncAndWriteMs());
        assertNull(g.syncMs());
        assertEquals(0, g.newLeader());
    }

    @Test
    void missingLinesLeaveTheirPhaseEmptyAndTheRestToTheWrite() {
        GapBreakdown g = GapBreakdown.of(1000 * MS, 1500 * MS, List.of());
        assertEquals(500.0, g.gapMs());
        assertNull(g.detectionMs());
        assertNull(g.electionMs());
        assertEquals(500.0, g.syncAndWriteMs());
        assertEquals(-1, g.newLeader());
    }
}
