package dev.zkr.chaos.workload;

import dev.zkr.chaos.history.History;
import dev.zkr.chaos.history.Op;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Parents;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A grow-only set: every worker creates children with names no other create uses, in buckets of
 * {@value #BUCKET} elements per worker (so that no children list outgrows a reply frame in long runs). After healing, on every server:
 * each acknowledged element is present, no element whose create definitely failed is present, nothing appears that
 * no one tried to add, and all servers hold the same set. A unique create answered {@code NodeExists} means a
 * create was applied twice (a retried request executed again): reported too.
 */
public final class SetWorkload implements Workload {

    static final String ROOT = "/chaos/set";
    static final int BUCKET = 10_000;

    @Override
    public String name() {
        return "set";
    }

    @Override
    public Set<String> writes() {
        return Set.of("add");
    }

    @Override
    public void setup(Worker admin) {
        admin.client().create(ROOT, new byte[0], CreateMode.PERSISTENT, Parents.PERSISTENT);
    }

    @Override
    public void work(Worker w) {
        int n = 0;
        while (!w.stopped()) {
            String element = "e-" + w.index() + "-" + n;
            String path = ROOT + "/b" + w.index() + "-" + (n++ / BUCKET) + "/" + element;
            w.call("add", ROOT, element, () -> w.client().createAsync(path, new byte[0], CreateMode.PERSISTENT,
                    Parents.PERSISTENT), c -> element);
        }
    }

    @Override
    public List<String> check(History history, FinalReads servers) throws Exception {
        Map<Integer, Set<String>> finals = new TreeMap<>();
        for (int i = 0; i < servers.servers(); i++) {
            int member = i;
            finals.put(servers.id(i), Retry.until("reading " + ROOT + " on server " + servers.id(i), () -> {
                servers.on(member).sync(ROOT);
                Set<String> elements = new TreeSet<>();
                for (String bucket : servers.on(member).getChildren(ROOT)) {
                    elements.addAll(servers.on(member).getChildren(ROOT + "/" + bucket));
                }
                return elements;
            }));
        }
        return check(history.ops(o -> o.f().equals("add")), finals);
    }

    /** The checks, pure: the {@code add} operations and each server's final elements (by server id). */
    static List<String> check(List<Op> adds, Map<Integer, Set<String>> finals) {
        Map<String, Op> attempts = new HashMap<>();
        for (Op op : adds) {
            attempts.put(op.arg(), op);
        }
        List<String> anomalies = new ArrayList<>();
        for (Op op : attempts.values()) {
            if (op.failed() && op.error().equals("NodeExists")) {
                anomalies.add("unique create of " + op.arg() + " answered NodeExists: applied twice? " + op);
            }
        }
        Set<String> first = null;
        int firstId = -1;
        for (Map.Entry<Integer, Set<String>> e : new TreeMap<>(finals).entrySet()) {
            Set<String> present = e.getValue();
            String on = " on server " + e.getKey();
            for (Op op : attempts.values()) {
                if (op.ok() && !present.contains(op.arg())) {
                    anomalies.add("acknowledged element " + op.arg() + " lost" + on);
                }
                if (op.failed() && present.contains(op.arg())) {
                    anomalies.add("element " + op.arg() + " present although its create failed (" + op.error() + ")"
                            + on);
                }
            }
            Set<String> unknown = new TreeSet<>(present);
            unknown.removeAll(attempts.keySet());
            if (!unknown.isEmpty()) {
                anomalies.add("elements no one added" + on + ": " + unknown);
            }
            if (first == null) {
                first = present;
                firstId = e.getKey();
            } else if (!first.equals(present)) {
                Set<String> missing = new TreeSet<>(first);
                missing.removeAll(present);
                Set<String> extra = new TreeSet<>(present);
                extra.removeAll(first);
                anomalies.add("server " + e.getKey() + " disagrees with server " + firstId + ": missing " + missing
                        + ", extra " + extra);
            }
        }
        return anomalies;
    }
}
