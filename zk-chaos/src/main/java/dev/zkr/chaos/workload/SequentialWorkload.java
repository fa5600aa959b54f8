package dev.zkr.chaos.workload;

import dev.zkr.chaos.history.History;
import dev.zkr.chaos.history.Op;
import dev.zkr.client.Created;
import dev.zkr.client.CreateMode;
import dev.zkr.client.Parents;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Sequential nodes: workers create {@code n-} sequential children (data: a tag unique to the create) and delete
 * about a third of those they were told about; all workers share one parent until it has had {@value #BUCKET}
 * creates, then the next (so that no children list outgrows a reply frame in long runs). No two acknowledged creates may get the same name, deleted names
 * included (no sequence number reused); after healing, on every server, each acknowledged live node is present with
 * its tag, acknowledged deletes are gone, no tag appears twice (a create applied twice), no tag of a definitely
 * failed create appears, and all servers agree. The {@code exactly-once} workload runs it on a root of its own
 * ({@link #SequentialWorkload(String, boolean)}), without deletes.
 */
public final class SequentialWorkload implements Workload {

    static final String ROOT = "/chaos/seq";
    static final int BUCKET = 20_000;
    private final java.util.concurrent.atomic.AtomicLong creates = new java.util.concurrent.atomic.AtomicLong();
    private final String root;
    private final boolean deletes;

    public SequentialWorkload() {
        this(ROOT, true);
    }

    /** Under {@code root}; {@code deletes}: whether workers delete a third of their nodes. */
    SequentialWorkload(String root, boolean deletes) {
        this.root = root;
        this.deletes = deletes;
    }

    @Override
    public String name() {
        return "sequential";
    }

    @Override
    public Set<String> writes() {
        return Set.of("create-seq", "delete");
    }

    @Override
    public void setup(Worker admin) {
        admin.client().create(root, new byte[0], CreateMode.PERSISTENT, Parents.PERSISTENT);
    }

    @Override
    public void work(Worker w) {
        int n = 0;
        while (!w.stopped()) {
            String tag = w.index() + "-" + n++;
            byte[] data = tag.getBytes(StandardCharsets.UTF_8);
            String parent = root + "/p" + (creates.getAndIncrement() / BUCKET);
            Worker.Result<Created> r = w.call("create-seq", parent, tag,
                    () -> w.client().createAsync(parent + "/n-", data, CreateMode.PERSISTENT_SEQUENTIAL,
                            Parents.PERSISTENT), c -> c.path().substring(root.length() + 1));
            if (deletes && r.ok() && w.random().nextInt(3) == 0) {
                String path = r.value().path();
                w.call("delete", path, tag, () -> w.client().deleteAsync(path, -1), v -> "deleted");
            }
        }
    }

    @Override
    public List<String> check(History history, FinalReads servers) throws Exception {
        Map<Integer, Map<String, String>> finals = new TreeMap<>();
        for (int i = 0; i < servers.servers(); i++) {
            int member = i;
            finals.put(servers.id(i), Retry.until("reading " + root + " on server " + servers.id(i), () -> {
                servers.on(member).sync(root);
                Map<String, String> m = new HashMap<>();
                for (String parent : servers.on(member).getChildren(root)) {
                    for (String name : servers.on(member).getChildren(root + "/" + parent)) {
                        String path = parent + "/" + name;
                        m.put(path, new String(servers.on(member).getData(root + "/" + path).data(),
                                StandardCharsets.UTF_8));
                    }
                }
                return m;
            }));
        }
        return check(root, history.ops(), finals);
    }

    static List<String> check(List<Op> ops, Map<Integer, Map<String, String>> finals) {
        return check(ROOT, ops, finals);
    }

    /**
     * The checks, pure: the history's {@code create-seq} and {@code delete} operations, and each server's final
     * children (name to tag) by server id, under {@code root}.
     */
    static List<String> check(String root, List<Op> ops, Map<Integer, Map<String, String>> finals) {
        List<String> anomalies = new ArrayList<>();
        Map<String, Op> byName = new HashMap<>();
        Map<String, Op> byTag = new HashMap<>();
        Map<String, Op> deletes = new HashMap<>();
        for (Op op : ops) {
            if (op.f().equals("create-seq")) {
                byTag.put(op.arg(), op);
                if (op.ok()) {
                    Op before = byName.putIfAbsent(op.result(), op);
                    if (before != null) {
                        anomalies.add("sequence name " + op.result() + " given twice: to " + before.arg() + " and "
                                + op.arg());
                    }
                }
            } else if (op.f().equals("delete")) {
                deletes.put(op.key().substring(root.length() + 1), op);
            }
        }
        Map<String, String> first = null;
        int firstId = -1;
        for (Map.Entry<Integer, Map<String, String>> server : new TreeMap<>(finals).entrySet()) {
            Map<String, String> nodes = server.getValue();
            String on = " on server " + server.getKey();
            Map<String, String> seenTag = new HashMap<>();
            for (Map.Entry<String, String> e : nodes.entrySet()) {
                String other = seenTag.put(e.getValue(), e.getKey());
                if (other != null) {
                    anomalies.add("tag " + e.getValue() + " in two nodes" + on + ": " + other + " and " + e.getKey()
                            + " (a create applied twice)");
                }
                Op create = byTag.get(e.getValue());
                if (create == null) {
                    anomalies.add("node " + e.getKey() + on + " has a tag no create used: " + e.getValue());
                } else if (create.failed()) {
                    anomalies.add("node " + e.getKey() + on + " from a create that failed: " + create);
                } else if (create.ok() && !create.result().equals(e.getKey())) {
                    anomalies.add("tag " + e.getValue() + on + " in node " + e.getKey() + " but its create was told "
                            + create.result());
                }
                Op delete = deletes.get(e.getKey());
                if (delete != null && delete.ok()) {
                    anomalies.add("node " + e.getKey() + on + " present after an acknowledged delete");
                }
            }
            for (Op create : byName.values()) {
                Op delete = deletes.get(create.result());
                boolean mayBeGone = delete != null && !delete.failed();
                if (!mayBeGone && !nodes.containsKey(create.result())) {
                    anomalies.add("acknowledged node " + create.result() + " (tag " + create.arg() + ") lost" + on);
                }
            }
            if (first == null) {
                first = nodes;
                firstId = server.getKey();
            } else if (!first.equals(nodes)) {
                anomalies.add("server " + server.getKey() + " disagrees with server " + firstId + " on " + root);
            }
        }
        return anomalies;
    }
}
