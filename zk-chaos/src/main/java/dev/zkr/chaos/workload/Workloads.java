package dev.zkr.chaos.workload;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** The workloads by command-line name. */
public final class Workloads {

    private static final Map<String, Supplier<Workload>> ALL = new LinkedHashMap<>();

    static {
        ALL.put("register", RegisterWorkload::new);
        ALL.put("set", SetWorkload::new);
        ALL.put("sequential", SequentialWorkload::new);
        ALL.put("lock", dev.zkr.chaos.recipes.LockWorkload::new);
        ALL.put("rwlock", dev.zkr.chaos.recipes.ReadWriteLockWorkload::new);
        ALL.put("latch", dev.zkr.chaos.recipes.LatchWorkload::new);
        ALL.put("curator-lock", dev.zkr.chaos.recipes.CuratorLockWorkload::new);
        ALL.put("curator-rwlock", dev.zkr.chaos.recipes.CuratorReadWriteLockWorkload::new);
        ALL.put("curator-latch", dev.zkr.chaos.recipes.CuratorLatchWorkload::new);
    }

    private Workloads() {
    }

    /** Adds a workload (used by workloads defined outside this package). */
    public static synchronized void register(String name, Supplier<Workload> factory) {
        ALL.put(name, factory);
    }

    public static synchronized Workload create(String name) {
        Supplier<Workload> f = ALL.get(name);
        if (f == null) {
            throw new IllegalArgumentException("unknown workload '" + name + "'; one of " + names());
        }
        return f.get();
    }

    public static synchronized List<String> names() {
        return List.copyOf(ALL.keySet());
    }
}
