package dev.zkr.chaos.workload;

import dev.zkr.chaos.history.Op;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link QueueCheck} on hand-built histories: a valid one, and one per bug it claims to catch. */
class QueueCheckTest {

    private static Op enqueue(String item, Op.Status status, long t) {
        return new Op(0, "enqueue", "/q", item, t, t + 1, status, status == Op.Status.OK ? item : null,
                status == Op.Status.OK ? null : "ConnectionLoss");
    }

    private static Op dequeue(String delivered, Op.Status status, long t) {
        return new Op(1, "dequeue", "/q", null, t, t + 1, status, delivered, null);
    }

    @Test
    void validHistory() {
        List<Op> ops = List.of(enqueue("a", Op.Status.OK, 0), enqueue("b", Op.Status.OK, 2),
                enqueue("c", Op.Status.INFO, 4), enqueue("d", Op.Status.FAIL, 6), enqueue("e", Op.Status.OK, 8),
                enqueue("f", Op.Status.OK, 9),
                dequeue("a@item-1", Op.Status.OK, 10), dequeue("c@item-3", Op.Status.OK, 12),
                dequeue("b@item-2", Op.Status.FAIL, 14), // ack refused: redelivered below
                dequeue("f@item-6", Op.Status.INFO, 15)); // its ack may have applied: f may be gone
        QueueCheck.Outcome o = QueueCheck.check("queue", ops, List.of("b@item-2", "e@item-5"), true);
        assertEquals(List.of(), o.anomalies());
        assertTrue(o.facts().get(0).contains("4 ok, 1 failed, 1 indeterminate (1 of those delivered)"), o::toString);
    }

    @Test
    void lostAcknowledgedItem() {
        List<Op> ops = List.of(enqueue("a", Op.Status.OK, 0), enqueue("b", Op.Status.OK, 2),
                dequeue("a@item-1", Op.Status.OK, 10));
        List<String> a = QueueCheck.check("queue", ops, List.of(), true).anomalies();
        assertEquals(1, a.size(), a::toString);
        assertTrue(a.get(0).contains("acknowledged item b lost"), a::toString);
    }

    @Test
    void itemNeverEnqueued() {
        List<Op> ops = List.of(enqueue("a", Op.Status.OK, 0), dequeue("a@item-1", Op.Status.OK, 10));
        List<String> a = QueueCheck.check("queue", ops, List.of("z@item-9"), true).anomalies();
        assertEquals(1, a.size(), a::toString);
        assertTrue(a.get(0).contains("z delivered but never enqueued"), a::toString);
    }

    @Test
    void itemWhoseEnqueueFailed() {
        List<Op> ops = List.of(enqueue("a", Op.Status.FAIL, 0), dequeue("a@item-1", Op.Status.OK, 10));
        List<String> a = QueueCheck.check("queue", ops, List.of(), true).anomalies();
        assertEquals(1, a.size(), a::toString);
        assertTrue(a.get(0).contains("enqueue failed"), a::toString);
    }

    @Test
    void duplicateDeliveriesAreCountedAndOfferAppliedTwiceIsAnAnomalyWhenOffersAreExactlyOnce() {
        List<Op> ops = List.of(enqueue("a", Op.Status.OK, 0), enqueue("b", Op.Status.OK, 1),
                dequeue("a@item-1", Op.Status.OK, 10), dequeue("a@item-1", Op.Status.OK, 12),
                dequeue("b@item-2", Op.Status.OK, 14));
        // a redelivered (same node): at-least-once allows it; b in two nodes: the offer was applied twice
        QueueCheck.Outcome exactly = QueueCheck.check("queue", ops, List.of("b@item-7"), true);
        assertEquals(1, exactly.anomalies().size(), exactly::toString);
        assertTrue(exactly.anomalies().get(0).contains("enqueued twice"), exactly::toString);
        assertTrue(exactly.facts().get(2).startsWith("queue: 2 items delivered more than once (2 extra deliveries), "
                + "1 items in two queue nodes"), exactly::toString);
        QueueCheck.Outcome atLeast = QueueCheck.check("curator-queue", ops, List.of("b@item-7"), false);
        assertEquals(List.of(), atLeast.anomalies());
    }
}
