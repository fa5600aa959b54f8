package dev.zkr.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One leader failure on a running ensemble and the write-unavailability gap it causes, seen by a client of a
 * surviving server: the client (a {@link WriteProbe} connected to the surviving member with the lowest id, and only
 * to it) writes without pause; the leader is killed ({@code kill -9}) or stopped ({@code SIGSTOP}); the gap is the
 * time from the signal to the acknowledgement of the first write issued after it. Afterwards the leader is
 * restarted (same data dir and ports) or resumed ({@code SIGCONT}), and the ensemble must be complete again.
 */
final class Failover {

    /** How the leader is lost. */
    enum Fault {
        /** {@code kill -9}: its sockets close at once. */
        KILL("kill -9"),
        /** {@code SIGSTOP}: its sockets stay open, it answers nothing (a hung or partitioned leader). */
        STOP("SIGSTOP");

        final String title;

        Fault(String title) {
            this.title = title;
        }
    }

    static final Duration RECOVERY = Duration.ofSeconds(120);
    static final Duration GAP_LIMIT = Duration.ofSeconds(60);

    private Failover() {
    }

    /**
     * One fault on {@code e} (which must be complete); returns where the gap went, once the ensemble is complete
     * again. The fault's instant is taken just before {@code kill -9} (sent from this JVM) and just after
     * {@code kill -STOP} returned (a child process: the stop has landed by then, so no write issued after the
     * instant can have been served by the stopped leader; it may make a SIGSTOP gap look a few ms shorter).
     */
    static GapBreakdown once(Ensemble e, Fault fault, String probePath) throws InterruptedException {
        int leader = e.awaitFull(RECOVERY);
        int writer = leader == 0 ? 1 : 0;
        long faultNanos;
        long ackNanos;
        try (WriteProbe probe = new WriteProbe(e.flavor(), e.connectString(writer), probePath)) {
            probe.awaitAcks(20, ServerScenarios.CONNECT);
            if (fault == Fault.KILL) {
                faultNanos = System.nanoTime();
                e.kill(leader);
            } else {
                e.pause(leader);
                faultNanos = System.nanoTime();
            }
            ackNanos = probe.firstAckIssuedAfter(faultNanos, GAP_LIMIT);
        } finally {
            if (fault == Fault.STOP) {
                e.resume(leader);
            } else if (!e.server(leader).alive()) {
                e.restart(leader);
            }
        }
        e.awaitFull(RECOVERY);
        // read the survivors' role lines only now: a line printed just before the first write was acknowledged may
        // reach this JVM a little after the acknowledgement
        List<GapBreakdown.Seen> seen = new ArrayList<>();
        for (int i = 0; i < e.size(); i++) {
            if (i != leader) {
                for (RoleLog.Event ev : e.roles(i).since(faultNanos)) {
                    seen.add(new GapBreakdown.Seen(i, ev));
                }
            }
        }
        GapBreakdown gap = GapBreakdown.of(faultNanos, ackNanos, seen);
        BenchMain.log("  %-9s %-9s %s of leader server %d, writer on server %d, new leader %s: gap %s ms (%s)",
                fault == Fault.KILL ? "kill" : "sigstop", e.flavor().name(), fault.title, e.id(leader), e.id(writer),
                gap.newLeader() < 0 ? "not seen in the output" : "server " + e.id(gap.newLeader()),
                ResultTable.number(gap.gapMs()), describe(gap));
        return gap;
    }

    static String describe(GapBreakdown g) {
        return "detection " + ms(g.detectionMs()) + ", election " + ms(g.electionMs())
                + ", sync + first write " + ms(g.syncAndWriteMs())
                + (g.syncMs() == null ? "" : " = sync " + ms(g.syncMs()) + " + first write " + ms(g.writeAfterSyncMs()));
    }

    private static String ms(Double v) {
        return v == null ? "–" : ResultTable.number(v);
    }
}
