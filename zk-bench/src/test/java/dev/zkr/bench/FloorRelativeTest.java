package dev.zkr.bench;

import dev.zkr.bench.ResultTable.Column;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class FloorRelativeTest {

    private static ResultTable table(double zkrFloor, double zooKeeperFloor) {
        ResultTable t = new ResultTable();
        t.row(FloorRelative.FLOOR_ROW, "ms", false, false).add(Column.ZKR, Measurement.of(zkrFloor))
                .add(Column.ZOOKEEPER, Measurement.of(zooKeeperFloor));
        return t;
    }

    @Test
    void aThroughputRowIsItsRateTimesItsOwnServersFloor() {
        ResultTable t = table(0.25, 0.40);
        ResultTable.Row queue = t.row("queue items", "items/s", true, true).boundByFloor()
                .add(Column.ZKR, Measurement.of(2000)).add(Column.ZOOKEEPER, Measurement.of(1000))
                .add(Column.ZKR_ON_ZOOKEEPER, Measurement.of(1500));
        ResultTable.Row floor = t.rows().get(0);
        assertEquals(0.5, FloorRelative.stepsPerFloor(queue, floor, Column.ZKR), 1e-9);
        assertEquals(0.4, FloorRelative.stepsPerFloor(queue, floor, Column.ZOOKEEPER), 1e-9);
        assertEquals(0.6, FloorRelative.stepsPerFloor(queue, floor, Column.ZKR_ON_ZOOKEEPER), 1e-9,
                "zkr's recipes on ZooKeeper count against ZooKeeper's floor");
        assertEquals(List.of("steps per floor (the rate × its server's notify p50), queue items: zkr 0.50, "
                + "ZooKeeper / Curator 0.40, zkr recipes on ZooKeeper 0.60"), FloorRelative.notes(t));
    }

    @Test
    void aLatencyRowIsTheFloorOverItsFigure() {
        ResultTable t = table(0.25, 0.40);
        ResultTable.Row handover = t.row("handover p50", "ms", false, true).boundByFloor()
                .add(Column.ZKR, Measurement.of(0.5)).add(Column.ZOOKEEPER, Measurement.of(1.6));
        assertEquals(0.5, FloorRelative.stepsPerFloor(handover, t.rows().get(0), Column.ZKR), 1e-9);
        assertEquals(0.25, FloorRelative.stepsPerFloor(handover, t.rows().get(0), Column.ZOOKEEPER), 1e-9);
        assertNull(FloorRelative.stepsPerFloor(handover, t.rows().get(0), Column.ZKR_ON_ZOOKEEPER), "not run");
    }

    @Test
    void noNoteWithoutTheFloorRowOrForUnmarkedRows() {
        ResultTable without = new ResultTable();
        without.row("queue items", "items/s", true, true).boundByFloor().add(Column.ZKR, Measurement.of(2000));
        assertEquals(List.of(), FloorRelative.notes(without));
        ResultTable t = table(0.25, 0.40);
        t.row("counter increments", "increments/s", true, true).add(Column.ZKR, Measurement.of(5000));
        assertEquals(List.of(), FloorRelative.notes(t));
        ResultTable failedFloor = new ResultTable();
        failedFloor.row(FloorRelative.FLOOR_ROW, "ms", false, false).add(Column.ZKR, Measurement.failed("down"));
        failedFloor.row("queue items", "items/s", true, true).boundByFloor().add(Column.ZKR, Measurement.of(2000));
        assertEquals(List.of(), FloorRelative.notes(failedFloor));
    }
}
