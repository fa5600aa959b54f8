package dev.zkr.chaos.workload;

import dev.zkr.chaos.history.History;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Several workloads side by side on one ensemble (the {@code all} workload): worker {@code i} works for workload
 * {@code i mod k} (at least two workers each), each workload keeps its own part of the history and is checked on
 * it alone; the run's history holds every part. One ensemble start instead of k, so the build can run every
 * workload in about a minute.
 */
public final class CompositeWorkload implements Workload {

    private final String name;
    private final List<Workload> parts;
    private final List<History> histories = new ArrayList<>();

    public CompositeWorkload(String name, List<Workload> parts) {
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("no workload to run");
        }
        this.name = name;
        this.parts = List.copyOf(parts);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int workers(int requested) {
        int perPart = Math.max(2, (requested + parts.size() - 1) / parts.size());
        int needed = 0;
        for (Workload w : parts) {
            needed += w.workers(perPart);
        }
        return Math.max(needed, parts.size() * perPart);
    }

    @Override
    public Set<String> writes() {
        Set<String> all = new LinkedHashSet<>();
        for (Workload w : parts) {
            all.addAll(w.writes());
        }
        return all;
    }

    @Override
    public void setup(Worker admin) throws Exception {
        for (Workload w : parts) {
            History h = admin.history().child();
            histories.add(h);
            w.setup(admin.withHistory(admin.index(), h));
        }
    }

    @Override
    public void work(Worker worker) throws Exception {
        int k = parts.size();
        int part = worker.index() % k;
        parts.get(part).work(worker.withHistory(worker.index() / k, histories.get(part)));
    }

    @Override
    public List<String> check(History history, FinalReads servers) throws Exception {
        List<String> anomalies = new ArrayList<>();
        for (int i = 0; i < parts.size(); i++) {
            for (String a : parts.get(i).check(histories.get(i), servers)) {
                anomalies.add(parts.get(i).name() + ": " + a);
            }
        }
        return anomalies;
    }

    @Override
    public long opsChecked(History history) {
        long n = 0;
        for (int i = 0; i < parts.size(); i++) {
            n += parts.get(i).opsChecked(histories.get(i));
        }
        return n;
    }

    @Override
    public List<String> facts() {
        List<String> facts = new ArrayList<>();
        for (Workload w : parts) {
            for (String f : w.facts()) {
                facts.add(f.startsWith(w.name() + ":") ? f : w.name() + ": " + f);
            }
        }
        return facts;
    }

    @Override
    public void close() {
        for (Workload w : parts) {
            w.close();
        }
    }
}
