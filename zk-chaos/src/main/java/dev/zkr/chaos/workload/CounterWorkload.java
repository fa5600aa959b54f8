package dev.zkr.chaos.workload;

import dev.zkr.chaos.history.History;
import dev.zkr.recipes.DistributedCounter;
import dev.zkr.recipes.Recipes;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * zkr's {@link DistributedCounter} (through the worker's client: zkr's own, or {@code ApacheZkClient} on ZooKeeper)
 * incremented by every worker; each {@code incr} is recorded with the value {@code incrementAndGet()} returned
 * (any exception: indeterminate). After healing the value is read on every server ({@code get()} syncs first) and
 * {@link CounterCheck} checks {@code ok ≤ final ≤ ok + indeterminate} and that returned values are unique and
 * increase in real-time order (the counter is documented as linearizable, every increment returning a distinct
 * value).
 */
public final class CounterWorkload implements Workload {

    static final String PATH = "/chaos/counter";

    private volatile List<String> facts = List.of();

    @Override
    public String name() {
        return "counter";
    }

    @Override
    public Set<String> writes() {
        return Set.of("incr");
    }

    @Override
    public void setup(Worker admin) {
        Recipes.using(admin.client()).counter(PATH).get();
    }

    @Override
    public void work(Worker w) {
        DistributedCounter counter = Recipes.using(w.client()).counter(PATH);
        while (!w.stopped()) {
            Blocking.call(w, "incr", PATH, "1", counter::incrementAndGet, String::valueOf);
        }
    }

    @Override
    public List<String> check(History history, FinalReads servers) throws Exception {
        Map<Integer, Long> finals = new LinkedHashMap<>();
        for (int i = 0; i < servers.servers(); i++) {
            DistributedCounter counter = Recipes.using(servers.on(i)).counter(PATH);
            finals.put(servers.id(i), Retry.until("reading the counter on server " + servers.id(i), counter::get));
        }
        CounterCheck.Outcome outcome = CounterCheck.check(name(), history.ops(), finals);
        facts = outcome.facts();
        return outcome.anomalies();
    }

    @Override
    public List<String> facts() {
        return facts;
    }
}
