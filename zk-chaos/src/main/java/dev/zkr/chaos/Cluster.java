package dev.zkr.chaos;

import dev.zkr.bench.Ensemble;
import dev.zkr.bench.ServerFlavor;
import dev.zkr.chaos.net.PeerNetwork;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The servers of one run: an {@link Ensemble} of separate JVMs whose peer links all pass through a
 * {@link PeerNetwork} of proxies, so that the nemesis can kill, pause and restart members and cut links.
 */
public final class Cluster implements AutoCloseable {

    private final Ensemble ensemble;
    private final PeerNetwork network;
    private final boolean[] paused;

    private Cluster(Ensemble ensemble, PeerNetwork network) {
        this.ensemble = ensemble;
        this.network = network;
        this.paused = new boolean[ensemble.size()];
    }

    /** Starts {@code size} servers of {@code flavor} behind proxies and waits until they form a full ensemble. */
    public static Cluster start(ServerFlavor flavor, int size, Path dir, Duration timeout) {
        List<Ensemble.Member> members = Ensemble.freshMembers(size);
        PeerNetwork network = PeerNetwork.build(members, flavor.name().equals("zookeeper"));
        Ensemble ensemble;
        try {
            ensemble = Ensemble.start(flavor, members, network.views(members), dir.resolve("data"),
                    dir.resolve("logs"), flavor.name());
        } catch (RuntimeException e) {
            network.close();
            throw e;
        }
        Cluster c = new Cluster(ensemble, network);
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

    public int size() {
        return ensemble.size();
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

    /** Heals every link, resumes every paused member and restarts every dead one. */
    public synchronized void healAll() {
        network.heal();
        for (int i = 0; i < size(); i++) {
            resume(i);
            if (!ensemble.server(i).alive()) {
                ensemble.restart(i);
            }
        }
    }

    @Override
    public void close() {
        for (int i = 0; i < size(); i++) {
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
