package dev.zkr.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Service discovery: zkr's {@code ServiceDiscovery}/{@code ServiceCache} (on the zkr server and on ZooKeeper) and
 * Curator's curator-x-discovery {@code ServiceDiscovery}/{@code ServiceCache}, written once against
 * {@link RecipeSession}.
 */
final class DiscoveryScenarios {

    static final int WATCHERS = 8;

    private DiscoveryScenarios() {
    }

    /**
     * Registration to visible: 8 service caches of one service on 8 sessions, one registrant session. A sample is the
     * time from the register call of a new instance until the last of the 8 caches' listeners holds it; the instance
     * is then unregistered and the next registration waits until every cache has seen it go (not measured). Returns
     * p50 and p99.
     */
    static Measurement[] registrationToVisible(RecipeSession.Factory factory, String cs, String root, Window window)
            throws Exception {
        String base = root + "/discovery";
        Views views = new Views(WATCHERS);
        Latencies latencies = new Latencies();
        Latencies unregistering = new Latencies(); // not a figure of the row: logged with its cost
        RunnerCost[] cost = new RunnerCost[1];
        TailBursts tail = new TailBursts();
        return RecipeScenarios.withSessions(factory, cs, 1 + WATCHERS, sessions -> {
            List<RecipeSession.Cache> caches = new ArrayList<>();
            try {
                for (int w = 0; w < WATCHERS; w++) {
                    int watcher = w;
                    caches.add(sessions.get(1 + w).serviceCache(base, "api", ids -> views.update(watcher, ids)));
                }
                RecipeSession registrant = sessions.get(0);
                Workers.run("discovery", 1, window, unused -> {
                    for (long seq = 0; !window.stopped(); seq++) {
                        String id = "i" + seq;
                        views.expect(ids -> ids.contains(id));
                        boolean measured = window.measuring();
                        if (measured && cost[0] == null) {
                            cost[0] = RunnerCost.start(cs);
                        }
                        long t0 = System.nanoTime();
                        RecipeSession.Registration r = registrant.register(base, "api", id);
                        long seenByAll = views.await(RecipeSession.TIMEOUT);
                        if (measured && window.measuring()) {
                            latencies.record(Math.max(0, seenByAll - t0));
                            tail.record(t0, Math.max(0, seenByAll - t0));
                        }
                        views.expect(ids -> !ids.contains(id));
                        long t1 = System.nanoTime();
                        r.unregister();
                        long goneFromAll = views.await(RecipeSession.TIMEOUT);
                        if (measured && window.measuring()) {
                            unregistering.record(Math.max(0, goneFromAll - t1));
                        }
                    }
                });
                if (cost[0] != null) {
                    BenchMain.log("  discovery cost: %s", cost[0].end(latencies.count()));
                    BenchMain.log("  discovery tail: %s", tail.describe());
                    if (unregistering.count() > 0) {
                        BenchMain.log("  discovery unregister → gone from all 8 caches: p50 %.2f ms, p99 %.2f ms",
                                unregistering.percentileMillis(50), unregistering.percentileMillis(99));
                    }
                }
            } finally {
                caches.forEach(RecipeSession.Cache::close);
            }
            if (window.failure() != null) {
                Measurement failed = Measurement.failed(ServerScenarios.describe(window.failure()));
                return new Measurement[] {failed, failed};
            }
            if (latencies.count() == 0) {
                Measurement none = Measurement.failed("no sample in the window");
                return new Measurement[] {none, none};
            }
            return new Measurement[] {Measurement.of(latencies.percentileMillis(50)),
                    Measurement.of(latencies.percentileMillis(99))};
        });
    }

    /** The watchers' latest views and the moment the expected condition became true in all of them. */
    private static final class Views {
        private final List<Set<String>> latest = new ArrayList<>();
        private Predicate<Set<String>> expected = ids -> true;
        private long doneAt; // 0: not yet

        Views(int watchers) {
            for (int i = 0; i < watchers; i++) {
                latest.add(new HashSet<>());
            }
        }

        synchronized void update(int watcher, Set<String> ids) {
            latest.set(watcher, Set.copyOf(ids));
            if (doneAt == 0 && latest.stream().allMatch(expected)) {
                doneAt = System.nanoTime();
                notifyAll();
            }
        }

        synchronized void expect(Predicate<Set<String>> condition) {
            expected = condition;
            doneAt = latest.stream().allMatch(condition) ? System.nanoTime() : 0;
        }

        /** The time the condition became true in every view; fails after the timeout. */
        synchronized long await(Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (doneAt == 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IllegalStateException("not seen by all " + latest.size() + " caches within " + timeout
                            + ": " + latest);
                }
                wait(Math.max(1, left / 1_000_000));
            }
            return doneAt;
        }
    }
}
