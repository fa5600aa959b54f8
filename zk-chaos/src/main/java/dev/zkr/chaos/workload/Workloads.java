package dev.zkr.chaos.workload;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The workloads by command-line name, and {@code all}: every workload that runs on the system, side by side
 * ({@link CompositeWorkload}). Names starting with {@code curator-} use Curator's recipes, a ZooKeeper client: they run
 * on ZooKeeper and, through ZooKeeper's client protocol, on zkr when named ({@code --workload curator-lock}); on zkr
 * {@code mix} and {@code all} leave them out ({@link #names(String)}), so that a published zkr seed still draws the
 * workload it drew before zkr spoke ZooKeeper's protocol. Workloads added since are run by name only
 * ({@link #BY_NAME_ONLY}), so that every published seed of {@code mix} still draws what it drew.
 */
public final class Workloads {

    /** The name of the composite of every workload. */
    public static final String ALL_NAME = "all";

    private static final Map<String, Supplier<Workload>> ALL = new LinkedHashMap<>();

    /**
     * Workloads {@code mix} and {@code all} leave out. {@code exactly-once}: conditional increments
     * ({@link CasCounterWorkload}) and sequential creates side by side, the writes whose lost replies are ambiguous;
     * its figure is the run's count of indeterminate writes.
     */
    private static final Map<String, Supplier<Workload>> BY_NAME_ONLY = new LinkedHashMap<>();

    static {
        ALL.put("register", RegisterWorkload::new);
        ALL.put("set", SetWorkload::new);
        ALL.put("sequential", SequentialWorkload::new);
        ALL.put("sessions", SessionsWorkload::new);
        ALL.put("queue", QueueWorkload::new);
        ALL.put("curator-queue", CuratorQueueWorkload::new);
        ALL.put("counter", CounterWorkload::new);
        ALL.put("curator-counter", CuratorCounterWorkload::new);
        ALL.put("lock", dev.zkr.chaos.recipes.LockWorkload::new);
        ALL.put("rwlock", dev.zkr.chaos.recipes.ReadWriteLockWorkload::new);
        ALL.put("latch", dev.zkr.chaos.recipes.LatchWorkload::new);
        ALL.put("curator-lock", dev.zkr.chaos.recipes.CuratorLockWorkload::new);
        ALL.put("curator-rwlock", dev.zkr.chaos.recipes.CuratorReadWriteLockWorkload::new);
        ALL.put("curator-latch", dev.zkr.chaos.recipes.CuratorLatchWorkload::new);
        BY_NAME_ONLY.put("exactly-once", () -> new CompositeWorkload("exactly-once", List.of(
                new CasCounterWorkload(), new SequentialWorkload("/chaos/eo/seq", false))));
    }

    private Workloads() {
    }

    public static synchronized Workload create(String name, String system) {
        if (name.equals(ALL_NAME)) {
            List<Workload> parts = new ArrayList<>();
            for (String n : names(system)) {
                parts.add(ALL.get(n).get());
            }
            return new CompositeWorkload(ALL_NAME, parts);
        }
        Supplier<Workload> f = ALL.containsKey(name) ? ALL.get(name) : BY_NAME_ONLY.get(name);
        if (f == null) {
            throw new IllegalArgumentException("unknown workload '" + name + "'; one of " + names() + " or "
                    + ALL_NAME);
        }
        return f.get();
    }

    /** Every workload's name. */
    public static synchronized List<String> names() {
        List<String> names = new ArrayList<>(ALL.keySet());
        names.addAll(BY_NAME_ONLY.keySet());
        return List.copyOf(names);
    }

    /** The workloads {@code mix} and {@code all} draw from on {@code system}. */
    public static synchronized List<String> names(String system) {
        return ALL.keySet().stream().filter(n -> runsOn(n, system)).toList();
    }

    private static boolean runsOn(String name, String system) {
        return !name.startsWith("curator-") || system.equals("zookeeper");
    }
}
