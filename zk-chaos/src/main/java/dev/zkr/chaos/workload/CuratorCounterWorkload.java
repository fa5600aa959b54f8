package dev.zkr.chaos.workload;

import dev.zkr.chaos.history.History;
import dev.zkr.client.NodeData;
import dev.zkr.client.ZkException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.atomic.AtomicValue;
import org.apache.curator.framework.recipes.atomic.DistributedAtomicLong;
import org.apache.curator.retry.RetryNTimes;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Curator's {@link DistributedAtomicLong} on ZooKeeper, incremented by every worker through its own
 * {@link CuratorFramework}: {@code increment()} that {@code succeeded()} is OK with its {@code postValue()}, one
 * that did not is FAIL (Curator says it was not applied), an exception is indeterminate. The same checks as
 * {@link CounterWorkload} ({@link CounterCheck}); the node's 8-byte value is read on every server after a sync.
 * Curator's failure modes (an optimistic {@code setData} retried after a lost response applies twice) show as
 * anomalies of the run: findings about Curator, reported as measured.
 */
public final class CuratorCounterWorkload implements Workload {

    static final String PATH = "/chaos/curator-counter";

    private volatile List<String> facts = List.of();

    @Override
    public String name() {
        return "curator-counter";
    }

    @Override
    public Set<String> writes() {
        return Set.of("incr");
    }

    @Override
    public void setup(Worker admin) throws Exception {
        try (CuratorFramework curator = Curators.open(admin.connectString())) {
            new DistributedAtomicLong(curator, PATH, new RetryNTimes(3, 100)).initialize(0L);
        }
    }

    @Override
    public void work(Worker w) throws Exception {
        try (CuratorFramework curator = Curators.open(w.connectString())) {
            DistributedAtomicLong counter = new DistributedAtomicLong(curator, PATH, new RetryNTimes(10, 50));
            while (!w.stopped()) {
                Blocking.call(w, "incr", PATH, "1", () -> {
                    AtomicValue<Long> v = counter.increment();
                    if (!v.succeeded()) {
                        throw new Blocking.NotApplied("not succeeded");
                    }
                    return v.postValue();
                }, String::valueOf);
            }
        }
    }

    @Override
    public List<String> check(History history, FinalReads servers) throws Exception {
        Map<Integer, Long> finals = new LinkedHashMap<>();
        for (int i = 0; i < servers.servers(); i++) {
            int member = i;
            finals.put(servers.id(i), Retry.until("reading " + PATH + " on server " + servers.id(i), () -> {
                servers.on(member).sync(PATH);
                try {
                    NodeData d = servers.on(member).getData(PATH);
                    return d.data().length < 8 ? 0L : ByteBuffer.wrap(d.data()).getLong();
                } catch (ZkException.NoNode e) {
                    return 0L;
                }
            }));
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
