package dev.zkr.chaos;

import dev.zkr.bench.Ensemble;
import dev.zkr.bench.ServerFlavor;
import dev.zkr.chaos.net.PeerNetwork;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The servers of one run: an {@link Ensemble} of separate JVMs whose peer links all pass through a
 * {@link PeerNetwork} of proxies, so that the nemesis can kill, pause and restart members and cut links. Besides
 * the voters started at the beginning it may hold spares: servers every member's configuration lists as static
 * observers (so every link to them has its proxy too), started on an empty disk only when the
 * {@code replace-member} nemesis adds one; a member it removes is retired (stopped for good).
 */
public final class Cluster implements AutoCloseable {

    /** The super user's password every member accepts ({@code super:admin}), for membership changes. */
    public static final String SUPER_PASSWORD = "admin";
    private static final String SUPER_DIGEST = "super:xQJmxLMiHGwaqBvst5y6rkB6HQs=";

    private final Ensemble ensemble;
    private final PeerNetwork network;
    private final boolean[] paused;
    private final int voters;
    /** The members that vote now, by index (changed by the replace-member nemesis). */
    private final java.util.Set<Integer> votingNow = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private boolean linksBypassProxies;

    private Cluster(Ensemble ensemble, PeerNetwork network, int voters) {
        this.ensemble = ensemble;
        this.network = network;
        this.voters = voters;
        for (int i = 0; i < voters; i++) {
            votingNow.add(i);
        }
        this.paused = new boolean[ensemble.size()];
    }

    /**
     * Starts {@code size} voters of {@code system} ("zkr" or "zookeeper") behind proxies, with {@code spares} more
     * servers (ids after theirs) listed as observers that do not run yet, and waits until the voters form a full
     * ensemble. With spares, every member accepts the super user {@code super:admin}, and ZooKeeper runs with
     * {@code reconfigEnabled=true} and without proxies ({@link #linksBypassProxies}).
     */
    public static Cluster start(String system, int size, int spares, Path dir, Duration timeout) {
        Set<Integer> spareIds = new java.util.TreeSet<>();
        for (int id = size + 1; id <= size + spares; id++) {
            spareIds.add(id);
        }
        ServerFlavor flavor;
        if (system.equals("zkr")) {
            flavor = spares == 0 ? new ServerFlavor.Zkr()
                    : new ServerFlavor.Zkr(false, List.of("superDigest=" + SUPER_DIGEST), spareIds);
        } else {
            flavor = spares == 0 ? new ServerFlavor.ZooKeeper() : new ServerFlavor.ZooKeeper(spareIds,
                    List.of("reconfigEnabled=true", "DigestAuthenticationProvider.superDigest=" + SUPER_DIGEST));
        }
        return start(flavor, size, spares, dir, timeout);
    }

    private static Cluster start(ServerFlavor flavor, int size, int spares, Path dir, Duration timeout) {
        List<Ensemble.Member> members = Ensemble.freshMembers(size + spares);
        boolean zooKeeper = flavor.name().equals("zookeeper");
        PeerNetwork network = PeerNetwork.build(members, zooKeeper);
        // ZooKeeper with reconfigEnabled gives every member the leader's addresses as soon as it syncs (the
        // membership is a config it compares), so an address per link (the proxies') cannot be kept: one address
        // per server, the real one
        boolean direct = zooKeeper && spares > 0;
        List<List<Ensemble.Member>> views = direct ? java.util.Collections.nCopies(members.size(), members)
                : network.views(members);
        Ensemble ensemble;
        try {
            ensemble = Ensemble.start(flavor, members, views, dir.resolve("data"), dir.resolve("logs"),
                    flavor.name(), size);
        } catch (RuntimeException e) {
            network.close();
            throw e;
        }
        Cluster c = new Cluster(ensemble, network, size);
        c.linksBypassProxies = direct;
        try {
            ensemble.awaitFull(timeout);
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
        return c;
    }

    public Ensemble ensemble() {
        return ensemble;
    }

    public PeerNetwork network() {
        return network;
    }

    /** Every server of the run, spares included (indices 0..size-1). */
    public int size() {
        return ensemble.size();
    }

    /** The servers that are members now: started and not retired, by index. */
    public List<Integer> active() {
        return ensemble.active();
    }

    /** The voters started at the beginning. */
    public int voters() {
        return voters;
    }

    /** Every member now, as a client of the ensemble would list them. */
    public String connectString() {
        return String.join(",", active().stream().map(ensemble::connectString).toList());
    }

    /** Whether member {@code i} votes now. */
    public boolean votes(int i) {
        return votingNow.contains(i);
    }

    /** Records that member {@code i} was made a voter. */
    public void promoted(int i) {
        votingNow.add(i);
    }

    /**
     * Starts spare {@code i} on its empty data dir, without waiting. A ZooKeeper spare's zoo.cfg names the voters
     * now as participants and every other server as an observer (it finds its leader through the voters it knows;
     * a zkr server learns the membership from the leader it reaches through any of its lines).
     */
    public synchronized void startSpare(int i) {
        if (ensemble.flavor() instanceof ServerFlavor.ZooKeeper zooKeeper) {
            java.util.Set<Integer> observers = new java.util.TreeSet<>();
            for (int k = 0; k < size(); k++) {
                if (!votes(k)) {
                    observers.add(ensemble.id(k));
                }
            }
            zooKeeper.observerIds(observers);
        }
        ensemble.startSpare(i);
    }

    /** The next spare never started, or -1 when none is left. */
    public int nextSpare() {
        for (int i = voters; i < size(); i++) {
            if (!ensemble.started(i) && !ensemble.retired(i)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Whether the members reach each other past the proxies (ZooKeeper with spares: reconfigEnabled), so cutting a
     * proxy cuts no link and the nemesis injects no partition.
     */
    public boolean linksBypassProxies() {
        return linksBypassProxies;
    }

    public String system() {
        return ensemble.flavor().name();
    }

    /** The current leader's index, or -1 if none is known now. */
    public int leader() {
        return ensemble.currentLeader();
    }

    public synchronized void pause(int i) {
        ensemble.pause(i);
        paused[i] = true;
    }

    public synchronized void resume(int i) {
        if (paused[i]) {
            ensemble.resume(i);
            paused[i] = false;
        }
    }

    /** Stops member {@code i} for good (the nemesis removed it from the membership). */
    public synchronized void retire(int i) {
        votingNow.remove(i);
        resume(i);
        ensemble.retire(i);
    }

    /** Heals every link, resumes every paused member and restarts every dead one that is still a member. */
    public synchronized void healAll() {
        network.heal();
        for (int i : active()) {
            resume(i);
            if (!ensemble.server(i).alive()) {
                ensemble.restart(i);
            }
        }
    }

    @Override
    public void close() {
        for (int i : active()) {
            try {
                resume(i);
            } catch (RuntimeException ignored) {
                // dead already
            }
        }
        ensemble.close();
        network.close();
    }
}
