package dev.zkr.server.port;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The bookkeeping behind maxOutboundBytesTotal and maxConnectionsPerHost. */
class ConnectionBoundsTest {

    @Test
    void theOutboundBudgetAddsEachConnectionsShareAndReleasesIt() {
        OutboundBudget budget = new OutboundBudget(100);
        assertTrue(budget.update(0, 60));      // connection A not draining: 60 held
        assertFalse(budget.update(0, 50));     // B too: 110 > 100
        assertTrue(budget.update(50, 0));      // B closed or drained
        assertTrue(budget.update(60, 100));    // A grows to exactly the limit
        assertEquals(100, budget.held());
        assertTrue(budget.update(100, 0));
        assertEquals(0, budget.held());
    }

    @Test
    void overTheBudgetOnlyConnectionsHoldingAFairShareAreToBeClosed() {
        OutboundBudget budget = new OutboundBudget(100);
        budget.update(0, 70);                   // a slow reader
        budget.update(0, 45);                   // another: 115 > 100
        budget.update(0, 10);                   // a good client's replies briefly above its high water mark
        assertTrue(budget.overFairShare(70));   // fair share of three holders: 33
        assertTrue(budget.overFairShare(45));
        assertFalse(budget.overFairShare(10), "a small share is not closed for what others hold");
        budget.update(70, 0);                   // the first slow reader closed: 55 <= 100
        assertFalse(budget.overFairShare(45), "within the limit nobody is closed");
    }

    @Test
    void hostsAreCountedSeparatelyAndSlotsComeBack() throws Exception {
        HostConnections hosts = new HostConnections(2);
        InetAddress a = InetAddress.getByName("10.0.0.1");
        InetAddress b = InetAddress.getByName("10.0.0.2");
        assertEquals(1, hosts.tryOpen(a));
        assertEquals(2, hosts.tryOpen(a));
        assertEquals(-1, hosts.tryOpen(a));
        assertEquals(1, hosts.tryOpen(b));
        hosts.closed(a);
        assertEquals(1, hosts.open(a));
        assertEquals(2, hosts.tryOpen(a));
        hosts.closed(a);
        hosts.closed(a);
        assertEquals(0, hosts.open(a));
    }
}
