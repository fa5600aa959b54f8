package dev.zkr.chaos.nemesis;

import dev.zkr.chaos.Cluster;
import dev.zkr.chaos.net.ClientNetwork;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.IntSupplier;

/** Injects one fault of a kind into a cluster, choosing its targets with the run's seeded random source. */
public final class Nemesis {

    private final Cluster cluster;
    private final Random random;
    private final List<String> problems = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** The workers' links, when they run behind client proxies (client faults), else null. */
    private final ClientNetwork clients;
    /** The worker that holds a lock or leadership now, or -1 (see {@link dev.zkr.chaos.recipes.Holders}). */
    private final IntSupplier holder;

    /** The slow-fsync shim of the run's servers, or null when the run does not use it. */
    private final SlowFsync slowFsync;

    private int slowFsyncs;

    /** The replace-member fault's state (its admin client's view of who is a voter), made on first use. */
    private MemberReplacement replacement;

    /** Milliseconds added to every fsync of the slowed server. */
    static final long SLOW_FSYNC_MS = 500;

    public Nemesis(Cluster cluster, Random random) {
        this(cluster, random, null, () -> -1, null);
    }

    public Nemesis(Cluster cluster, Random random, ClientNetwork clients, IntSupplier holder, SlowFsync slowFsync) {
        this.cluster = cluster;
        this.random = random;
        this.clients = clients;
        this.holder = holder;
        this.slowFsync = slowFsync;
    }

    /**
     * What the faults revealed by themselves (not through a workload): on zkr, a peer connection carrying bad
     * frames that the server left open.
     */
    public List<String> problems() {
        return List.copyOf(problems);
    }

    /** Injects {@code kind} now and returns how to heal it. */
    public Fault inject(NemesisKind kind) {
        int n = all().size();
        if (kind.partitions() && cluster.linksBypassProxies()) {
            return fault("no partition: the members reach each other past the proxies (ZooKeeper with reconfigEnabled)",
                    () -> { });
        }
        return switch (kind) {
            case NONE -> fault("nothing", () -> { });
            case KILL_LEADER -> kill(List.of(leaderOrAny()), "leader");
            case KILL_FOLLOWER -> kill(List.of(followerOrAny()), "follower");
            case KILL_MINORITY -> kill(shuffled().subList(0, (n - 1) / 2), "minority");
            case PAUSE_LEADER -> pause(leaderOrAny(), "leader");
            case PAUSE_FOLLOWER -> pause(followerOrAny(), "follower");
            case PARTITION_LEADER -> {
                int l = leaderOrAny();
                Set<Integer> rest = new HashSet<>(all());
                rest.remove(l);
                yield partition(List.of(Set.of(l), rest), "leader " + id(l) + " isolated");
            }
            case PARTITION_HALF -> {
                List<Integer> order = shuffled();
                int minority = (n - 1) / 2;
                yield partition(List.of(new HashSet<>(order.subList(0, minority)),
                        new HashSet<>(order.subList(minority, n))), "majority/minority");
            }
            case PARTITION_BRIDGE -> bridge();
            case PARTITION_RING -> n < 5 ? bridge() : ring();
            case TORN_TAIL -> damage(true);
            case CORRUPT_TAIL -> damage(false);
            case PEER_GARBAGE -> garbage();
            case CUT_CLIENT -> cutClient();
            case SLOW_FSYNC -> slowFsync();
            case REPLACE_MEMBER -> replaceMember();
        };
    }

    private Fault kill(List<Integer> targets, String what) {
        List<String> names = new ArrayList<>();
        for (int i : targets) {
            cluster.ensemble().kill(i);
            names.add(Integer.toString(id(i)));
        }
        return fault("kill -9 " + what + " " + names, () -> {
            for (int i : targets) {
                cluster.ensemble().restart(i);
            }
        });
    }

    private Fault pause(int i, String what) {
        cluster.pause(i);
        return fault("SIGSTOP " + what + " " + id(i), () -> cluster.resume(i));
    }

    private Fault partition(List<Set<Integer>> sides, String what) {
        cluster.network().partition(sides);
        return fault("partition " + what + ": " + describe(sides), () -> cluster.network().heal());
    }

    private Fault bridge() {
        List<Integer> order = shuffled();
        int bridge = order.get(0);
        List<Integer> rest = order.subList(1, order.size());
        Set<Integer> a = new HashSet<>(rest.subList(0, rest.size() / 2));
        Set<Integer> b = new HashSet<>(rest.subList(rest.size() / 2, rest.size()));
        cluster.network().apply((x, y) -> x == bridge || y == bridge || (a.contains(x) == a.contains(y)));
        return fault("partition bridge " + id(bridge) + " between " + ids(a) + " and " + ids(b),
                () -> cluster.network().heal());
    }

    private Fault ring() {
        List<Integer> order = shuffled();
        int n = order.size();
        cluster.network().apply((x, y) -> {
            int d = Math.abs(order.indexOf(x) - order.indexOf(y));
            return d == 1 || d == n - 1;
        });
        List<Integer> ringIds = order.stream().map(this::id).toList();
        return fault("partition ring " + ringIds, () -> cluster.network().heal());
    }

    private Fault damage(boolean torn) {
        int i = shuffled().get(0);
        cluster.ensemble().kill(i);
        String what;
        try {
            var target = LogDamage.lastRecord(cluster.system(), cluster.ensemble().dataDir(i));
            if (target.isEmpty()) {
                what = "no log record to damage";
            } else if (torn) {
                LogDamage.tear(target.get());
                what = "tore the last record of " + target.get().file().getFileName();
            } else {
                LogDamage.corrupt(target.get(), (target.get().end() - target.get().start()) / 2);
                what = "flipped a byte of the last record of " + target.get().file().getFileName();
            }
        } catch (IOException | RuntimeException e) {
            what = "could not damage the log: " + e;
        }
        return fault("kill -9 server " + id(i) + ", " + what + ", restart", () -> cluster.ensemble().restart(i));
    }

    private Fault cutClient() {
        if (clients == null) {
            throw new IllegalStateException("cut-client needs the workers behind client proxies");
        }
        int drawn = random.nextInt(clients.workers()); // drawn always, so the schedule does not depend on timing
        int holding = holder.getAsInt();
        int w = holding >= 0 && holding < clients.workers() ? holding : drawn;
        clients.cut(w);
        return fault("worker " + w + (w == holding ? " (holding)" : "") + " cut off from every server",
                clients::heal);
    }

    private Fault slowFsync() {
        if (slowFsync == null) {
            throw new IllegalStateException("slow-fsync needs the servers started with its shim");
        }
        // the leader and a follower in turn: both cases in every run (a seeded draw of a fixed kind's target
        // repeats itself: java.util.Random's consecutive small draws are correlated)
        int i = slowFsyncs++ % 2 == 0 ? leaderOrAny() : followerOrAny();
        boolean leader = i == cluster.leader();
        slowFsync.slow(cluster.ensemble().server(i).pid(), SLOW_FSYNC_MS);
        return fault("fsync of server " + id(i) + (leader ? " (leader)" : " (follower)") + " " + SLOW_FSYNC_MS
                + " ms slower", slowFsync::heal);
    }

    private Fault replaceMember() {
        if (replacement == null) {
            replacement = new MemberReplacement(cluster);
        }
        int target = shuffled().get(0); // drawn always, so the schedule does not depend on timing
        boolean removeFirst = random.nextBoolean();
        return fault(replacement.replace(target, removeFirst), () -> { });
    }

    private Fault garbage() {
        int i = shuffled().get(0);
        List<String> results = new ArrayList<>();
        results.addAll(PeerGarbage.send(cluster.ensemble().members().get(i).peerPort(), random));
        if (cluster.system().equals("zookeeper")) {
            for (String r : PeerGarbage.send(cluster.ensemble().members().get(i).electionPort(), random)) {
                results.add("election port " + r);
            }
        }
        String description = "bad frames on the peer port of server " + id(i) + ": " + String.join("; ", results);
        if (cluster.system().equals("zkr") && description.contains("STILL OPEN")) {
            problems.add("a peer connection with bad frames was left open: " + description);
        }
        return fault(description, () -> { });
    }

    private int leaderOrAny() {
        int l = cluster.leader();
        return l >= 0 ? l : shuffled().get(0);
    }

    private int followerOrAny() {
        int l = cluster.leader();
        for (int i : shuffled()) {
            if (i != l) {
                return i;
            }
        }
        throw new IllegalStateException("no member");
    }

    /** The members now (started, not retired). */
    private List<Integer> all() {
        return new ArrayList<>(cluster.active());
    }

    private List<Integer> shuffled() {
        List<Integer> all = all();
        Collections.shuffle(all, random);
        return all;
    }

    private int id(int i) {
        return cluster.ensemble().id(i);
    }

    private List<Integer> ids(Set<Integer> indices) {
        return indices.stream().sorted().map(this::id).toList();
    }

    private String describe(List<Set<Integer>> sides) {
        return String.join(" | ", sides.stream().map(s -> ids(s).toString()).toList());
    }

    private static Fault fault(String description, Runnable heal) {
        return new Fault() {
            @Override
            public String describe() {
                return description;
            }

            @Override
            public void heal() {
                heal.run();
            }
        };
    }
}
