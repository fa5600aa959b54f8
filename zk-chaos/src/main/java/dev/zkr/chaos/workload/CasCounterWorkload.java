package dev.zkr.chaos.workload;

import dev.zkr.chaos.history.History;
import dev.zkr.client.CreateMode;
import dev.zkr.client.NodeData;
import dev.zkr.client.Parents;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A counter of raw conditional increments, the write whose lost reply hurts most: each worker reads the node
 * ({@code getData}: value and version) and writes value + 1 at that version ({@code setData}), recorded as
 * {@code incr} with the value written; {@code BadVersion} is a definite FAIL (another worker won), anything else
 * undecided is INFO. A retry that blindly sent the same {@code setData} again would meet its own first attempt as
 * {@code BadVersion} and report an applied increment as failed: {@link CounterCheck} catches it as a final value
 * above the acknowledged plus indeterminate increments. Values written must be unique and increase in real-time
 * order; every server reads the same final value after healing.
 */
final class CasCounterWorkload implements Workload {

    static final String PATH = "/chaos/eo/counter";

    private volatile List<String> facts = List.of();

    @Override
    public String name() {
        return "cas-counter";
    }

    @Override
    public Set<String> writes() {
        return Set.of("incr");
    }

    @Override
    public void setup(Worker admin) {
        admin.client().create(PATH, bytes(0), CreateMode.PERSISTENT, Parents.PERSISTENT);
    }

    @Override
    public void work(Worker w) {
        while (!w.stopped()) {
            Worker.Result<NodeData> read = w.call("read", PATH, null, () -> w.client().getDataAsync(PATH, null),
                    d -> String.valueOf(value(d.data())));
            if (!read.ok()) {
                continue;
            }
            long next = value(read.value().data()) + 1;
            int version = read.value().stat().version();
            w.call("incr", PATH, String.valueOf(version),
                    () -> w.client().setDataAsync(PATH, bytes(next), version), s -> String.valueOf(next));
        }
    }

    @Override
    public List<String> check(History history, FinalReads servers) throws Exception {
        Map<Integer, Long> finals = new LinkedHashMap<>();
        for (int i = 0; i < servers.servers(); i++) {
            int member = i;
            finals.put(servers.id(i), Retry.until("reading " + PATH + " on server " + servers.id(i), () -> {
                servers.on(member).sync(PATH);
                return value(servers.on(member).getData(PATH).data());
            }));
        }
        CounterCheck.Outcome outcome = CounterCheck.check(name(), history.ops(), finals);
        facts = outcome.facts();
        return outcome.anomalies();
    }

    @Override
    public long opsChecked(History history) {
        return history.ops(o -> o.f().equals("incr")).size();
    }

    @Override
    public List<String> facts() {
        return facts;
    }

    private static byte[] bytes(long v) {
        return Long.toString(v).getBytes(StandardCharsets.UTF_8);
    }

    private static long value(byte[] data) {
        return Long.parseLong(new String(data, StandardCharsets.UTF_8));
    }
}
