package dev.zkr.chaos.workload;

import dev.zkr.chaos.history.History;
import dev.zkr.chaos.history.Op;
import dev.zkr.check.LinearizabilityChecker;
import dev.zkr.check.LinearizabilityReport;
import dev.zkr.check.Operation;
import dev.zkr.check.Outcome;
import dev.zkr.check.PartitionResult;
import dev.zkr.check.Verdict;
import dev.zkr.check.Znode;
import dev.zkr.check.ZnodeCall;
import dev.zkr.check.ZnodeModel;
import dev.zkr.client.CreateMode;
import dev.zkr.client.NodeData;
import dev.zkr.client.Parents;
import dev.zkr.client.Stat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Versioned registers: every worker reads ({@code sync} + {@code getData}), writes ({@code setData} any version),
 * compare-and-sets ({@code setData} at the version it last saw) and creates the current key. Keys are used one
 * after another ({@value #OPS_PER_KEY} operations each, all workers on the same key) so that each key's history
 * stays small enough to check; every key's history must be linearizable ({@link LinearizabilityChecker} with the
 * {@link ZnodeModel}: indeterminate operations may have taken effect at any time after their invocation, or never).
 */
public final class RegisterWorkload implements Workload {

    static final String ROOT = "/chaos/register";
    static final int OPS_PER_KEY = 200;

    private final AtomicLong started = new AtomicLong();
    private volatile String lastReport = "";

    @Override
    public String name() {
        return "register";
    }

    @Override
    public Set<String> writes() {
        return Set.of("write", "cas", "create");
    }

    @Override
    public void setup(Worker admin) {
        admin.client().create(ROOT, new byte[0], CreateMode.PERSISTENT, Parents.PERSISTENT);
    }

    @Override
    public void work(Worker w) {
        int lastVersion = 0;
        int writes = 0;
        while (!w.stopped()) {
            long n = started.getAndIncrement();
            String key = ROOT + "/k" + (n / OPS_PER_KEY);
            int dice = w.random().nextInt(10);
            if (dice < 4) {
                Worker.Result<NodeData> r = w.call("read", key, null,
                        () -> w.client().syncAsync(key).thenCompose(v -> w.client().getDataAsync(key, null)),
                        RegisterWorkload::describe);
                if (r.ok()) {
                    lastVersion = r.value().stat().version();
                }
            } else if (dice < 7) {
                String value = w.index() + "-" + writes++;
                byte[] data = value.getBytes(StandardCharsets.UTF_8);
                Worker.Result<Stat> r = w.call("write", key, value, () -> w.client().setDataAsync(key, data, -1),
                        s -> value + "@" + s.version());
                if (r.ok()) {
                    lastVersion = r.value().version();
                }
            } else if (dice < 9) {
                String value = w.index() + "-" + writes++;
                byte[] data = value.getBytes(StandardCharsets.UTF_8);
                int expected = lastVersion;
                Worker.Result<Stat> r = w.call("cas", key, value + "@" + expected,
                        () -> w.client().setDataAsync(key, data, expected), s -> value + "@" + s.version());
                if (r.ok()) {
                    lastVersion = r.value().version();
                }
            } else {
                String value = w.index() + "-" + writes++;
                byte[] data = value.getBytes(StandardCharsets.UTF_8);
                Worker.Result<?> r = w.call("create", key, value,
                        () -> w.client().createAsync(key, data, CreateMode.PERSISTENT), c -> value + "@0");
                if (r.ok()) {
                    lastVersion = 0;
                }
            }
        }
    }

    private static String describe(NodeData d) {
        return new String(d.data(), StandardCharsets.UTF_8) + "@" + d.stat().version();
    }

    @Override
    public List<String> check(History history, FinalReads servers) {
        List<Operation> ops = new ArrayList<>();
        for (Op op : history.ops()) {
            if (op.key() != null && op.key().startsWith(ROOT + "/")) {
                ops.add(toOperation(op));
            }
        }
        LinearizabilityReport report = new LinearizabilityChecker<>(new ZnodeModel()).check(ops);
        List<String> anomalies = new ArrayList<>();
        for (PartitionResult p : report.partitions()) {
            if (p.verdict() == Verdict.VIOLATION) {
                anomalies.add("not linearizable: " + p.describe());
            } else if (p.verdict() == Verdict.UNKNOWN) {
                anomalies.add("linearizability unknown (step budget spent): key " + p.key() + ", " + p.operations()
                        + " operations");
            }
        }
        lastReport = report.describe();
        return anomalies;
    }

    /** The checker's description of the last check (per key verdicts), for the run's report. */
    public String lastReport() {
        return lastReport;
    }

    /** The history record as the checker's operation. */
    static Operation toOperation(Op op) {
        ZnodeCall call = switch (op.f()) {
            case "read" -> new ZnodeCall.Read();
            case "write" -> new ZnodeCall.SetData(op.arg(), -1);
            case "cas" -> new ZnodeCall.SetData(op.arg().substring(0, op.arg().lastIndexOf('@')),
                    Integer.parseInt(op.arg().substring(op.arg().lastIndexOf('@') + 1)));
            case "create" -> new ZnodeCall.Create(op.arg());
            default -> throw new IllegalArgumentException("not a register operation: " + op);
        };
        Outcome outcome = switch (op.status()) {
            case OK -> Outcome.ok(valueOf(op));
            case FAIL -> Outcome.failed(op.error());
            case INFO -> Outcome.indeterminate();
        };
        return new Operation(op.process(), op.invoke(), op.complete(), op.key(), call, outcome);
    }

    /** {@code data@version} as the model's node. */
    private static Znode valueOf(Op op) {
        String r = op.result();
        int at = r.lastIndexOf('@');
        return Znode.present(r.substring(0, at), Integer.parseInt(r.substring(at + 1)));
    }
}
