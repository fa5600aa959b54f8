package dev.zkr.chaos.recipes;

import dev.zkr.chaos.history.History;
import dev.zkr.chaos.history.Op;
import dev.zkr.chaos.workload.FinalReads;
import dev.zkr.chaos.workload.Worker;
import dev.zkr.chaos.workload.Workload;
import dev.zkr.client.ClientSupport;
import dev.zkr.client.CreateMode;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The leader-latch workloads' loop and checks. Each worker joins the latch (a new instance each time), and then: as
 * leader it writes to the {@link FencedResource} with its token every 5–20 ms and resigns (closes the latch) after
 * 100–500 ms of leadership (one term in five: 2–10 s); as follower it waits for leadership and leaves after 1–4 s. Then it joins again. The
 * recipe's elected/revoked callbacks are recorded; a term runs from elected to revoked or the resign. Checks: no two
 * terms valid at the same instant (validity as {@link Holds} defines it: outside the client's SUSPENDED windows);
 * tokens increase across successive terms (equal only for the same latch instance, back after a reconnect).
 */
abstract class LatchLoop implements Workload {

    static final String ROOT = "/chaos/latch";
    static final String PATH = ROOT + "/leader";

    final FencedResource resource = new FencedResource();
    private volatile List<String> facts = List.of();

    /** One latch instance, as the loop sees it. */
    interface Participant {
        boolean isLeader();

        /** The current term's token, -1 when unknown or not leading. */
        long token();

        /** Waits up to {@code millis} for leadership. */
        void awaitLeadership(long millis) throws InterruptedException;

        void close() throws Exception;
    }

    /** One worker's client and latches. */
    interface Session extends AutoCloseable {
        /** Starts a latch instance {@code id} that records its elected/revoked callbacks under that id. */
        Participant join(String id) throws Exception;

        @Override
        void close();
    }

    abstract Session open(Worker w) throws Exception;

    @Override
    public void setup(Worker admin) {
        // the mutex and the read/write lock (or zkr's and Curator's latch) side by side share the root
        ClientSupport.await(ClientSupport.ensurePath(admin.client(), ROOT, CreateMode.PERSISTENT));
    }

    @Override
    public Set<String> writes() {
        return Set.of(Events.ELECTED);
    }

    @Override
    public void work(Worker w) throws Exception {
        History h = w.history();
        try (Session s = open(w)) {
            int n = 0;
            while (!w.stopped()) {
                String id = w.index() + "-" + n++;
                long invoke = h.now();
                Participant p;
                try {
                    p = s.join(id);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                } catch (Exception e) {
                    h.add(new Op(w.index(), Events.JOIN, id, null, invoke, h.now(), Op.Status.INFO, null,
                            e.getClass().getSimpleName()));
                    Thread.sleep(100);
                    continue;
                }
                h.add(new Op(w.index(), Events.JOIN, id, null, invoke, h.now(), Op.Status.OK, null, null));
                try {
                    take(w, id, p);
                } finally {
                    long r = h.now();
                    Op.Status status = Op.Status.OK;
                    String error = null;
                    try {
                        p.close();
                    } catch (Exception e) {
                        status = Op.Status.INFO;
                        error = e.getClass().getSimpleName();
                    }
                    h.add(new Op(w.index(), Events.RESIGN, id, null, r, h.now(), status, null, error));
                }
            }
        }
    }

    /** Leads or follows until it is time to leave this instance. */
    private void take(Worker w, String id, Participant p) throws InterruptedException {
        long now = w.history().now();
        long leaveAt = now + (1_000 + w.random().nextInt(3_000)) * 1_000_000L;
        // one term in five is long, so that faults catch leaders leading
        long leadFor = (w.random().nextInt(5) == 0 ? 2_000 + w.random().nextInt(8_000) : 100 + w.random().nextInt(400))
                * 1_000_000L;
        long ledSince = -1;
        while (!w.stopped()) {
            now = w.history().now();
            if (p.isLeader()) {
                if (ledSince < 0) {
                    ledSince = now;
                }
                long token = p.token();
                if (token >= 0) {
                    Events.write(w.history(), resource, w.index(), id, token, p.isLeader());
                }
                if (now - ledSince > leadFor) {
                    return;
                }
                Thread.sleep(5 + w.random().nextInt(16));
            } else {
                ledSince = -1;
                if (now > leaveAt) {
                    return;
                }
                p.awaitLeadership(50);
            }
        }
    }

    @Override
    public List<String> check(History history, FinalReads servers) {
        List<Op> ops = history.ops();
        List<Hold> terms = Holds.fromLatches(ops);
        List<HoldChecks.Overlap> overlaps = HoldChecks.overlaps(terms, HoldChecks.EXCLUSIVE);
        List<String> anomalies = new ArrayList<>(HoldChecks.describe(overlaps));
        anomalies.addAll(HoldChecks.tokensIncreaseAcrossLeaders(terms));
        facts = RecipeFacts.of(RecipeFacts.terms(ops, terms), RecipeFacts.writes(ops),
                "overlapping leaders: " + overlaps.size() + "; fenced resource's highest token: "
                        + resource.highest());
        return anomalies;
    }

    @Override
    public List<String> facts() {
        return facts;
    }
}
