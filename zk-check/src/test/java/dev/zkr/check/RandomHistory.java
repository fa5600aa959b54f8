package dev.zkr.check;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Linearizable-by-construction znode histories: a random sequential execution against {@link ZnodeModel#apply},
 * each operation then given an interval around its linearisation point (so intervals overlap), each client running
 * one operation at a time. An indeterminate operation took effect or not (a coin) and retires its client, whose
 * successor gets a new id, as a process that lost its connection would.
 */
final class RandomHistory {

    private static final String[] DATA = {"a", "b", "c"};

    /** Shape of a generated history. */
    record Shape(int ops, int keys, int clients, int jitter, double indeterminate) {
    }

    private final SplittableRandom random;
    private final Shape shape;
    private final ZnodeModel model = new ZnodeModel();
    private final Map<String, Znode> nodes = new HashMap<>();
    private final long[] clientIds;
    private final long[] freeAt;
    private long nextClientId;

    private RandomHistory(long seed, Shape shape) {
        this.random = new SplittableRandom(seed);
        this.shape = shape;
        this.clientIds = new long[shape.clients()];
        this.freeAt = new long[shape.clients()];
        for (int c = 0; c < shape.clients(); c++) {
            clientIds[c] = nextClientId++;
            freeAt[c] = Long.MIN_VALUE;
        }
    }

    static List<Operation> generate(long seed, Shape shape) {
        return new RandomHistory(seed, shape).run();
    }

    private List<Operation> run() {
        List<Operation> ops = new ArrayList<>(shape.ops());
        long point = 0;
        for (int i = 0; i < shape.ops(); i++) {
            point = Math.max(point + 1 + random.nextInt(10), earliestFree());
            int c = freeClientAt(point);
            long invoke = Math.max(freeAt[c] + 1, point - random.nextInt(shape.jitter() + 1));
            long response = point + random.nextInt(shape.jitter() + 1);
            String key = "/k" + random.nextInt(shape.keys());
            ZnodeCall call = randomCall(nodes.getOrDefault(key, Znode.ABSENT));
            ZnodeModel.Effect effect = model.apply(nodes.getOrDefault(key, Znode.ABSENT), call);
            Outcome outcome = effect.outcome();
            boolean lost = random.nextDouble() < shape.indeterminate();
            if (!lost || random.nextBoolean()) {
                nodes.put(key, effect.next());
            }
            if (lost) {
                outcome = Outcome.indeterminate();
                clientIds[c] = nextClientId++;
                freeAt[c] = point;
            } else {
                freeAt[c] = response;
            }
            ops.add(new Operation(clientIds[c], invoke, lost ? invoke : response, key, call, outcome));
        }
        return ops;
    }

    private long earliestFree() {
        long earliest = Long.MAX_VALUE;
        for (long t : freeAt) {
            earliest = Math.min(earliest, t + 1);
        }
        return earliest;
    }

    private int freeClientAt(long point) {
        int start = random.nextInt(freeAt.length);
        for (int i = 0; i < freeAt.length; i++) {
            int c = (start + i) % freeAt.length;
            if (freeAt[c] < point) {
                return c;
            }
        }
        throw new IllegalStateException("no client free at " + point);
    }

    private ZnodeCall randomCall(Znode node) {
        String data = DATA[random.nextInt(DATA.length)];
        int version = node instanceof Znode.Present p && random.nextInt(3) > 0 ? p.version() : random.nextInt(3) - 1;
        return switch (random.nextInt(8)) {
            case 0 -> new ZnodeCall.Create(data);
            case 1, 2 -> new ZnodeCall.SetData(data, version);
            case 3 -> new ZnodeCall.Delete(version);
            case 4 -> new ZnodeCall.CheckVersion(version);
            default -> new ZnodeCall.Read();
        };
    }

    /** The history with one ok read's result replaced by a node holding data nobody ever wrote. */
    static List<Operation> withForgedRead(List<Operation> ops, long seed) {
        List<Integer> reads = new ArrayList<>();
        for (int i = 0; i < ops.size(); i++) {
            if (ops.get(i).call() instanceof ZnodeCall.Read && ops.get(i).outcome() instanceof Outcome.Ok) {
                reads.add(i);
            }
        }
        if (reads.isEmpty()) {
            return ops;
        }
        int i = reads.get(new SplittableRandom(seed).nextInt(reads.size()));
        Operation read = ops.get(i);
        Znode seen = (Znode) ((Outcome.Ok) read.outcome()).value();
        int version = seen instanceof Znode.Present p ? p.version() : 0;
        List<Operation> forged = new ArrayList<>(ops);
        forged.set(i, new Operation(read.client(), read.invoke(), read.response(), read.key(), read.call(),
                Outcome.ok(Znode.present("never-written", version))));
        return forged;
    }
}
