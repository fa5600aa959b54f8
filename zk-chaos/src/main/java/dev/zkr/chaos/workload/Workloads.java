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
        ALL.put("sessions", SessionsWorkload::new);
        ALL.put("queue", QueueWorkload::new);
        ALL.put("curator-queue", CuratorQueueWorkload::new);
        ALL.put("counter", CounterWorkload::new);
        ALL.put("curator-counter", CuratorCounterWorkload::new);
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
