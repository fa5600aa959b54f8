package dev.zkr.chaos.recipes;

import dev.zkr.chaos.history.History;
import dev.zkr.chaos.history.Op;
import dev.zkr.chaos.workload.FinalReads;
import dev.zkr.chaos.workload.Worker;
import dev.zkr.chaos.workload.Workload;
import dev.zkr.client.ClientSupport;
import dev.zkr.client.CreateMode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.BiPredicate;

/**
 * The lock workloads' loop and checks. Each worker, again and again: acquire (with a timeout) as its role (mutex,
 * reader or writer), and while holding write 1–3 times to the {@link FencedResource} with the lease's token (writers
 * only) over 0–50 ms — one hold in 20 is long: a write every 100 ms for 1–10 s, whatever the lease's state — then
 * release. Checks: tokens increase in real-time order of acquires; no two conflicting
 * holders valid at the same instant (validity as {@link Holds} defines it); facts: fenced writes rejected as stale.
 */
abstract class LockLoop implements Workload {

    static final String ROOT = "/chaos/locks";
    static final Duration ACQUIRE_TIMEOUT = Duration.ofSeconds(2);
    private static final long MAX_HOLD_MS = 50;
    /**
     * One hold in this many is long (1–10 s, a write every 100 ms), so that faults catch holders holding: a
     * holder cut off long enough for its session to expire meets its successor's writes at the fenced resource.
     */
    private static final int LONG_HOLD_ONE_IN = 20;
    private static final long LONG_HOLD_PAUSE_MS = 100;
    /** After an acquire failed with an error: the connection is likely down, do not spin. */
    private static final long ERROR_PAUSE_MS = 100;

    final FencedResource resource = new FencedResource();
    private final BiPredicate<Hold, Hold> conflict;
    private volatile List<String> facts = List.of();

    LockLoop(BiPredicate<Hold, Hold> conflict) {
        this.conflict = conflict;
    }

    /** A lease, as the loop sees it. */
    interface Claim {
        /** When the acquire returned (history time), before anything else was done. */
        long acquiredAt();

        long token();

        /** Whether the holder believes it holds right now (the recipe's own answer). */
        boolean valid();

        void release() throws Exception;
    }

    /** One worker's lock (and its client, for Curator). */
    interface Session extends AutoCloseable {
        /** Acquires as {@code role} within the timeout (null if it ran out); records the lease's states as hold-state. */
        Claim acquire(String hold, String role, Duration timeout) throws Exception;

        @Override
        void close();
    }

    abstract Session open(Worker w) throws Exception;

    /** The role of the next acquire: {@code mutex}, or {@code read}/{@code write}. */
    abstract String role(Worker w);

    @Override
    public void setup(Worker admin) throws Exception {
        // the mutex and the read/write lock (or zkr's and Curator's latch) side by side share the root
        ClientSupport.await(ClientSupport.ensurePath(admin.client(), ROOT, CreateMode.PERSISTENT));
    }

    @Override
    public Set<String> writes() {
        return Set.of(Events.ACQUIRE);
    }

    @Override
    public void work(Worker w) throws Exception {
        History h = w.history();
        try (Session s = open(w)) {
            int n = 0;
            while (!w.stopped()) {
                String hold = w.index() + "-" + n++;
                String role = role(w);
                long invoke = h.now();
                Claim c;
                try {
                    c = s.acquire(hold, role, ACQUIRE_TIMEOUT);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                } catch (Exception e) {
                    h.add(new Op(w.index(), Events.ACQUIRE, hold, role, invoke, h.now(), Op.Status.INFO, null,
                            e.getClass().getSimpleName()));
                    Thread.sleep(ERROR_PAUSE_MS);
                    continue;
                }
                if (c == null) {
                    h.add(new Op(w.index(), Events.ACQUIRE, hold, role, invoke, h.now(), Op.Status.FAIL, null,
                            "NotAcquired"));
                    continue;
                }
                h.add(new Op(w.index(), Events.ACQUIRE, hold, role, invoke, c.acquiredAt(), Op.Status.OK,
                        Long.toString(c.token()), null));
                try {
                    holdFor(w, hold, role, c);
                } finally {
                    long r = h.now();
                    Op.Status status = Op.Status.OK;
                    String error = null;
                    try {
                        c.release();
                    } catch (Exception e) {
                        status = Op.Status.INFO;
                        error = e.getClass().getSimpleName();
                    }
                    h.add(new Op(w.index(), Events.RELEASE, hold, role, r, h.now(), status, null, error));
                }
            }
        }
    }

    private void holdFor(Worker w, String hold, String role, Claim c) throws InterruptedException {
        boolean longHold = w.random().nextInt(LONG_HOLD_ONE_IN) == 0;
        int writes = longHold ? 10 + w.random().nextInt(90) : 1 + w.random().nextInt(3);
        long pause = longHold ? LONG_HOLD_PAUSE_MS : w.random().nextInt((int) MAX_HOLD_MS + 1) / writes;
        for (int i = 0; i < writes && !(longHold && w.stopped()); i++) {
            if (!role.equals("read")) {
                Events.write(w.history(), resource, w.index(), hold, c.token(), c.valid());
            }
            Thread.sleep(pause);
        }
    }

    @Override
    public List<String> check(History history, FinalReads servers) {
        List<Op> ops = history.ops();
        List<Hold> holds = Holds.fromLocks(ops);
        List<HoldChecks.Overlap> overlaps = HoldChecks.overlaps(holds, conflict);
        List<String> anomalies = new ArrayList<>(HoldChecks.tokensIncreaseAcrossAcquires(holds));
        anomalies.addAll(HoldChecks.describe(overlaps));
        facts = RecipeFacts.of(RecipeFacts.acquires(ops, holds), RecipeFacts.writes(ops),
                "overlapping valid leases: " + overlaps.size() + "; fenced resource's highest token: "
                        + resource.highest());
        return anomalies;
    }

    @Override
    public List<String> facts() {
        return facts;
    }
}
